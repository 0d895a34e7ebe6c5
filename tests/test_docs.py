"""The documentation holds to the tree: every relative link of README.md and docs/*.md names a
file of the repository and, after a `#`, a heading of the document it names (as GitHub slugs
headings); no link leaves the repository; the README stays short; the index of docs/ names
every document there. Only the standard library: nothing is fetched, nothing is rendered."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote

ROOT = Path(__file__).resolve().parent.parent
README_LINES = 150

#: A fenced code block (``` or ~~~), whose text is never a link or a heading.
FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,}).*?^(?P=indent)(?P=fence)[`~]*[ \t]*$", re.M | re.S)
#: An inline code span: `code`, ``code with ` in it``.
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
#: An inline link or image: [text](target) or [text](target "title"); the target is group 1.
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
#: An ATX heading: one to six #, a space, its text, optional closing #s.
HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$", re.M)
#: An HTML anchor a link may name: <a id="..."> or <a name="...">.
HTML_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"", re.I)
#: A URL's scheme (http:, mailto:, file: ...).
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
#: Schemes a link may use: read by people, never fetched here.
EXTERNAL = {"http", "https", "mailto"}


def documents(root: Path = ROOT) -> list[Path]:
    """The README and every document of docs/."""
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def prose(text: str) -> str:
    """The text outside fenced code blocks and code spans (code blocks become blank lines, so
    that line numbers stay)."""
    text = FENCE.sub(lambda block: "\n" * block.group(0).count("\n"), text)
    return CODE_SPAN.sub(lambda span: " " * len(span.group(0)), text)


def links(text: str) -> Iterator[tuple[int, str]]:
    """(line number, target) of every inline link and image of a document's prose."""
    body = prose(text)
    for found in LINK.finditer(body):
        yield body.count("\n", 0, found.start()) + 1, found.group(1)


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: the text as rendered (links as their text, code
    without its backticks, no emphasis marks), lower case, every character but letters,
    digits, spaces, hyphens and underscores removed, each space a hyphen."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.replace("`", "")
    text = re.sub(r"(\*+)(.+?)\1", r"\2", text)  # emphasis with *
    text = re.sub(r"(?<!\w)(_+)(.+?)\1(?!\w)", r"\2", text)  # emphasis with _, not snake_case
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every anchor of a document: its headings' slugs (a repeated one with -1, -2 ...) and
    its HTML anchors."""
    seen: dict[str, int] = {}
    found = set(HTML_ANCHOR.findall(text))
    for heading in HEADING.findall(FENCE.sub("", text)):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def problems(root: Path, paths: list[Path]) -> tuple[list[str], list[str], list[str]]:
    """Every broken link of these documents, in three lists: a file that does not exist, an
    anchor that is no heading of its document, a link out of the repository."""
    missing: list[str] = []
    no_heading: list[str] = []
    outside: list[str] = []
    root = root.resolve()
    for path in paths:
        for line, target in links(path.read_text(encoding="utf-8")):
            where = f"{path.relative_to(root)}:{line}: {target}"
            scheme = SCHEME.match(target)
            if scheme:
                if scheme.group(0)[:-1].lower() not in EXTERNAL:
                    outside.append(where)
                continue
            name, _, anchor = target.partition("#")
            name = unquote(name.partition("?")[0])
            if name.startswith("/"):
                outside.append(where)  # absolute: a path of the web site, not of the repository
                continue
            named = (path.parent / name).resolve() if name else path.resolve()
            if not named.is_relative_to(root):
                outside.append(where)
                continue
            if not named.exists():
                missing.append(where)
                continue
            if anchor and named.suffix == ".md" and unquote(anchor) not in anchors(named.read_text(encoding="utf-8")):
                no_heading.append(where)
            elif anchor and named.suffix != ".md":
                no_heading.append(where)  # no heading to name outside a markdown document
    return missing, no_heading, outside


# The checks themselves, on a small tree made for them: each finds what it must.


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_the_check_finds_a_link_to_a_file_that_does_not_exist(tmp_path):
    readme = write(tmp_path / "README.md", "See [the rules](docs/rules.md) and [the API](docs/api.md).\n")
    write(tmp_path / "docs" / "rules.md", "# Rules\n")
    missing, no_heading, outside = problems(tmp_path, [readme])
    assert missing == ["README.md:1: docs/api.md"]
    assert no_heading == outside == []


def test_the_check_finds_an_anchor_that_names_no_heading(tmp_path):
    readme = write(
        tmp_path / "README.md",
        "# Top\n\n## Two\n\n[up](#top) [two](#two) [gone](#three)\n[there](docs/a.md#a-b) [not there](docs/a.md#a-c)\n",
    )
    write(tmp_path / "docs" / "a.md", "# A: b\n")
    missing, no_heading, outside = problems(tmp_path, [readme])
    assert no_heading == ["README.md:5: #three", "README.md:6: docs/a.md#a-c"]
    assert missing == outside == []


def test_the_check_finds_a_link_out_of_the_repository(tmp_path):
    (tmp_path / "repo").mkdir()
    write(tmp_path / "shared" / "notes.md", "# Notes\n")
    readme = write(
        tmp_path / "repo" / "README.md",
        "[notes](../shared/notes.md) [a file](file:///etc/hosts) [root](/etc/hosts) [web](https://example.org/x)\n",
    )
    missing, no_heading, outside = problems(tmp_path / "repo", [readme])
    assert outside == [
        "README.md:1: ../shared/notes.md",
        "README.md:1: file:///etc/hosts",
        "README.md:1: /etc/hosts",
    ]
    assert missing == no_heading == []


def test_links_and_headings_inside_code_are_not_read():
    text = "# Real\n\n```sh\n# not a heading\ncurl '[x](nowhere.md)'\n```\n\nInline `[y](nowhere.md)` too.\n"
    assert list(links(text)) == []
    assert anchors(text) == {"real"}


def test_headings_are_slugged_as_github_slugs_them():
    assert slug("What an acknowledged write promises: `POISON_REDIS_WAIT`") == (
        "what-an-acknowledged-write-promises-poison_redis_wait"
    )
    assert slug("Where a request's time goes") == "where-a-requests-time-goes"
    assert slug("The pot game's GameView") == "the-pot-games-gameview"
    assert slug("`poison replay`: check a log and show it") == "poison-replay-check-a-log-and-show-it"
    assert slug("Poison — the reference service") == "poison--the-reference-service"
    assert slug("The search bot (`mcts`)") == "the-search-bot-mcts"
    assert slug("**Bold** and [a link](x.md)") == "bold-and-a-link"
    assert anchors("# Notes\n## Notes\n## Notes\n") == {"notes", "notes-1", "notes-2"}


# The repository's own documents.


def test_every_relative_link_in_the_readme_and_docs_names_a_file_that_exists():
    missing, _, _ = problems(ROOT, documents())
    assert missing == []


def test_every_anchor_link_names_a_heading_of_its_document():
    _, no_heading, _ = problems(ROOT, documents())
    assert no_heading == []


def test_no_link_in_the_readme_and_docs_leaves_the_repository():
    _, _, outside = problems(ROOT, documents())
    assert outside == []


def test_the_readme_has_at_most_150_lines():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_LINES, f"README.md has {len(lines)} lines; the rest belongs in docs/"


def test_the_index_of_docs_names_every_document_there():
    index = ROOT / "docs" / "README.md"
    targets = [target.partition("#")[0] for _, target in links(index.read_text(encoding="utf-8"))]
    named = {(index.parent / target).resolve() for target in targets}
    unnamed = [path.name for path in documents()[1:] if path != index and path.resolve() not in named]
    assert unnamed == []
