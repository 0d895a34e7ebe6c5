// What the lobby's form may offer, read from the service's OpenAPI document (the request
// body of `POST /v1/games`): each ruleset, its fewest and most seats, its bots, the longest
// name, the search bot's playouts (bounds, default), its options and their bounds. The page declares none of these itself, so the form
// always offers exactly what the service accepts.

function resolve(doc, node) {
  while (node && node.$ref) node = doc.components.schemas[node.$ref.split("/").pop()];
  return node;
}

/** The alternatives of a schema (anyOf / oneOf), each resolved; a plain schema is its own one. */
function alternatives(doc, node) {
  node = resolve(doc, node);
  return (node.anyOf ?? node.oneOf ?? [node]).map((alternative) => resolve(doc, alternative));
}

const isNull = (node) => node.type === "null" || (Array.isArray(node.enum) && node.enum.length === 1 && node.enum[0] === null);

function enumOf(doc, node) {
  return alternatives(doc, node).flatMap((alternative) => (alternative.enum ?? []).filter((value) => value !== null));
}

/** The form's fields for an option: a number within bounds, or a choice among words. */
function option(doc, path, node, label) {
  const found = alternatives(doc, node);
  const number = found.find((alternative) => alternative.type === "integer");
  const nullable = found.some(isNull);
  if (number) return [{ path, label, kind: "integer", min: number.minimum, max: number.maximum, nullable, fallback: node.default ?? null, description: number.description ?? node.description ?? "" }];
  const choices = enumOf(doc, node);
  if (choices.length) return [{ path, label, kind: "choice", choices, fallback: node.default ?? choices[0], description: node.description ?? "" }];
  const object = found.find((alternative) => alternative.type === "object" && alternative.properties);
  if (object) return Object.entries(object.properties).flatMap(([name, inner]) => option(doc, [...path, name], inner, name));
  return [];
}

/** Every ruleset a new game may have, with what its form offers. */
export function newGameForms(doc) {
  const body = resolve(doc, doc.paths["/v1/games"].post.requestBody.content["application/json"].schema);
  const variants = body.oneOf ?? body.anyOf ?? [body];
  return variants.map((variant) => {
    const schema = resolve(doc, variant);
    const properties = schema.properties;
    const ruleset = enumOf(doc, properties.ruleset)[0] ?? properties.ruleset.const;
    const players = resolve(doc, properties.players);
    // A seat is one of two shapes (PlayerIn: a name and maybe a bot; OpenSeatIn: left open):
    // the named one gives the name's bounds and the bots.
    const seat = alternatives(doc, players.items).find((shape) => shape.properties?.name?.type === "string") ?? resolve(doc, players.items);
    const options = Object.entries(properties)
      .filter(([name]) => !["ruleset", "players", "seed"].includes(name))
      .flatMap(([name, node]) => option(doc, [name], node, name));
    const seed = alternatives(doc, properties.seed).find((alternative) => alternative.type === "integer");
    // The search bot's strength: its playouts a move, within the service's bounds.
    const playouts = seat.properties.playouts ? alternatives(doc, seat.properties.playouts).find((alternative) => alternative.type === "integer") : null;
    return {
      ruleset,
      description: schema.description ?? "",
      seats: { min: players.minItems, max: players.maxItems },
      nameLength: { min: seat.properties.name.minLength ?? 1, max: seat.properties.name.maxLength },
      bots: enumOf(doc, seat.properties.bot),
      playouts: playouts ? { min: playouts.minimum, max: playouts.maximum, fallback: seat.properties.playouts.default ?? playouts.default ?? null, description: playouts.description ?? seat.properties.playouts.description ?? "" } : null,
      options,
      seed: seed ? { description: seed.description ?? "" } : null,
    };
  });
}
