// Building the page's elements without ever parsing markup: every name and card a game holds
// came from a person or the server, and goes into the page as text, never as HTML.

const SVG = "http://www.w3.org/2000/svg";

function build(element, attrs, children) {
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "on") {
      for (const [type, handler] of Object.entries(value)) element.addEventListener(type, handler);
    } else if (name === "dataset") {
      Object.assign(element.dataset, value);
    } else if (name === "class" && Array.isArray(value)) {
      element.setAttribute("class", value.filter(Boolean).join(" "));
    } else if (name in element && !(element instanceof SVGElement) && typeof value !== "string") {
      element[name] = value; // a property: checked, value, disabled, tabIndex …
    } else {
      element.setAttribute(name, value === true ? "" : String(value));
    }
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

/** An HTML element: h("button", {class: "card", on: {click}}, "R5"). */
export function h(tag, attrs, ...children) {
  return build(document.createElement(tag), attrs, children);
}

/** An SVG element, the same way. */
export function s(tag, attrs, ...children) {
  return build(document.createElementNS(SVG, tag), attrs, children);
}

/** Replace everything inside `element` with `children`. */
export function fill(element, ...children) {
  element.replaceChildren();
  return build(element, null, children);
}

export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
