"""Doxygen's input filter for the Markdown pages (docs/Doxyfile.in: FILTER_PATTERNS).

    python3 docs/md_filter.py <repository root> [<sequence file>] <page.md>   (the page on stdout)

The pages are written for GitHub's renderer; this makes Doxygen render them the same way:
- A <details> block,
      <details><summary>Hint 1: a nudge</summary>
      (blank line, Markdown, blank line)
      </details>
  becomes the same HTML inside \\htmlonly[block], so Doxygen keeps the block whole and still
  renders the Markdown between.
- Every heading below the page's title gets the anchor GitHub gives it (its "slug": lower case,
  punctuation dropped, spaces to hyphens, a repeated one numbered), as a Doxygen label prefixed
  with the page's own name (labels are global; pages are not), and every link to a heading,
  `[text](#slug)` or `[text](other.md#slug)`, is pointed at that label on the page Doxygen
  writes (`md_<path>.html`, STRIP_FROM_PATH being the root), so that docs/check_rendered.py
  finds a link to a heading that is not there. Doxygen 1.9 has no GitHub-style anchors of its
  own: without this such a link is dead or a warning.
- A code span, `like this`, comes out as GitHub shows it. Doxygen 1.9 reads a backtick closed
  by an apostrophe as an old-style quote (`x' is "x" in quotes), so a span with an apostrophe in
  it is written with two backticks, which Doxygen takes whole; and it drops a span that runs over
  more than two lines, so a span's lines are joined.
- A link from a page to a page in a folder below its own (the exercises' index to each exercise)
  becomes a \\subpage, so that Doxygen's tree nests them under it.
- A fenced block in the language `dot` (a Graphviz graph: GitHub shows its source) becomes a
  \\dot block, which Doxygen draws.
- An image from docs/images is named by its file name alone, which Doxygen looks up in its
  IMAGE_PATH and copies beside the pages.
- A page named in the sequence file (the chapters, then the exercises, one path a line, in
  order) ends with links to the previous and the next one.
One line in, one line out (a paragraph whose span was joined is followed by the blank lines it
lost): Doxygen's warnings keep their line numbers.
"""
import os
import re
import sys

HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t]*(\{#[^}]*\})?[ \t]*$")
FENCE = re.compile(r"^[ \t]*(```|~~~)")
BACKTICKS = re.compile(r"`+")
LINK = re.compile(r"\]\(([^()\s#]*\.md)?#([^()\s]+)\)")


def page_name(root, path):
    """Doxygen's name for a Markdown page: md_ and the path from the root, '_' for the rest."""
    rel = os.path.relpath(os.path.abspath(path), root)
    return "md_" + re.sub(r"[^A-Za-z0-9]", "_", os.path.splitext(rel)[0])


def github_slug(title):
    """The anchor GitHub's renderer gives a heading (before numbering repeats)."""
    text = re.sub(r"<[^>]*>", "", title).strip().lower()
    text = "".join(ch for ch in text if ch.isalnum() or ch in " -_")
    return text.replace(" ", "-")


def label(page, slug):
    """A Doxygen label for `slug` on `page`: letters, digits, '-' and '_' only."""
    return page + "_" + re.sub(r"[^a-z0-9_-]", "", slug.lower())


def code_spans(text):
    """`text` with its code spans rewritten for Doxygen (see the top), and the line breaks removed."""
    out, pos, removed = [], 0, 0
    runs = list(BACKTICKS.finditer(text))
    i = 0
    while i < len(runs):
        opener = runs[i]
        if opener.start() > 0 and text[opener.start() - 1] == "\\":
            i += 1
            continue
        closer = next((j for j in range(i + 1, len(runs)) if len(runs[j].group()) == len(opener.group())), None)
        if closer is None:
            i += 1
            continue
        body = text[opener.end():runs[closer].start()]
        if "\n\n" in body:  # a span never crosses a paragraph
            i += 1
            continue
        removed += body.count("\n")
        body = body.replace("\n", " ")
        ticks = opener.group()
        if "'" in body and len(ticks) == 1:
            ticks = "``"
            if body.startswith("`") or body.endswith("`"):
                body = " " + body + " "
        out.append(text[pos:opener.start()] + ticks + body + ticks)
        pos = runs[closer].end()
        i = closer + 1
    out.append(text[pos:])
    return "".join(out), removed


COMMAND_BLOCK = re.compile(r"\\(code|verbatim|htmlonly|dot)\b")


def spans_joined(lines):
    """Rewrites the code spans of each paragraph (see code_spans), leaving code blocks alone:
    fenced ones and Doxygen's \\code, \\verbatim, \\htmlonly and \\dot blocks."""
    result, block, fenced = [], [], None  # fenced: what ends the code block we are in

    def flush():
        if block:
            text, removed = code_spans("\n".join(block))
            result.extend(text.split("\n") + [""] * removed)
            block.clear()

    for line in lines:
        if fenced:
            result.append(line)
            if fenced in line if fenced.startswith("\\") else line.strip().startswith(fenced):
                fenced = None
            continue
        fence, command = FENCE.match(line), COMMAND_BLOCK.search(line)
        if fence or (command and "\\end" + command.group(1) not in line[command.end():]):
            flush()
            fenced = fence.group(1) if fence else "\\end" + command.group(1)
            result.append(line)
        elif not line.strip():
            flush()
            result.append(line)
        else:
            block.append(line)
    flush()
    return result


def title(path):
    """A page's title: its first heading's text."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = HEADING.match(line)
            if m:
                return m.group(2)
    return os.path.basename(os.path.dirname(path))


def neighbours(root, sequence, path):
    """The lines that end a page of the sequence: links to the one before it and the one after."""
    with open(sequence, encoding="utf-8") as f:
        pages = [os.path.join(root, l.strip()) for l in f if l.strip()]
    me = os.path.abspath(path)
    if me not in pages:
        return []
    i = pages.index(me)
    links = []
    if i > 0:
        links.append(f'Previous: \\ref {page_name(root, pages[i - 1])} "{title(pages[i - 1])}"')
    if i + 1 < len(pages):
        links.append(f'Next: \\ref {page_name(root, pages[i + 1])} "{title(pages[i + 1])}"')
    return ["", "<hr>", "", " &middot; ".join(links)] if links else []


IMAGE = re.compile(r"!\[([^\]]*)\]\(([^()\s:]+)\)")
SUBPAGE_LINK = re.compile(r"\[([^\]]+)\]\(([^()\s#:]+\.md)\)")


def main():
    root = os.path.abspath(sys.argv[1])
    sequence, path = (sys.argv[2], sys.argv[3]) if len(sys.argv) > 3 else (None, sys.argv[2])
    page = page_name(root, path)
    here = os.path.dirname(os.path.abspath(path))
    children = set()

    def subpage(m):
        target = os.path.normpath(os.path.join(here, m.group(2)))
        name = page_name(root, target)
        if os.path.dirname(target) == here or not target.startswith(here + os.sep) or name in children:
            return m.group(0)
        children.add(name)
        return f'\\subpage {name} "{m.group(1)}"'

    with open(path, encoding="utf-8") as f:
        lines = spans_joined(f.read().split("\n"))

    out, seen, fenced, titled, diagram = [], {}, None, False, False
    for line in lines:
        fence = FENCE.match(line)
        if fence:
            opening = fenced is None
            fenced = None if fenced == fence.group(1) else (fenced or fence.group(1))
            if opening and line.strip()[3:].strip() == "dot":
                diagram = True
                line = "\\dot"
            elif not opening and diagram:
                diagram = False
                line = "\\enddot"
            out.append(line)
            continue
        if fenced:
            out.append(line)
            continue
        if re.match(r"^<details><summary>.*</summary>[ \t]*$", line):
            line = "\\htmlonly[block]" + line.rstrip() + "\\endhtmlonly"
        elif re.match(r"^</details>[ \t]*$", line):
            line = "\\htmlonly[block]</details>\\endhtmlonly"
        heading = HEADING.match(line)
        if heading and not heading.group(3):
            if not titled and len(heading.group(1)) == 1:
                titled = True  # the page's title: Doxygen names the page itself
            else:
                slug = github_slug(heading.group(2))
                n = seen.get(slug, 0)
                seen[slug] = n + 1
                line = line.rstrip() + " {#" + label(page, slug + (f"-{n}" if n else "")) + "}"
        elif heading:
            titled = True

        def relink(m):
            if m.group(1) and "://" in m.group(1):
                return m.group(0)
            target = page if not m.group(1) else page_name(root, os.path.join(here, m.group(1)))
            return "](" + target + ".html#" + label(target, m.group(2)) + ")"

        def image(m):  # Doxygen copies an image it finds in IMAGE_PATH (docs/images) by its name
            target = os.path.normpath(os.path.join(here, m.group(2)))
            if os.path.dirname(target) == os.path.join(root, "docs", "images") and os.path.isfile(target):
                return f"![{m.group(1)}]({os.path.basename(target)})"
            return m.group(0)

        out.append(SUBPAGE_LINK.sub(subpage, LINK.sub(relink, IMAGE.sub(image, line))))
    if sequence:
        out += neighbours(root, sequence, path)
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main()
