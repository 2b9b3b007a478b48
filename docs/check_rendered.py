"""What the eye would catch in the rendered docs, which Doxygen does not warn about.

    python3 docs/check_rendered.py <html folder> [<repository root> <page or folder>...]

Reads every page Doxygen wrote and fails (exit 1, one line per finding: page, what, where) on
- Doxygen markup left as text: `\\ilinebr`, `\\snippet`, `\\ref`, `\\htmlonly`, ... (a command
  Doxygen did not take, often a code span it split);
- table markup escaped into text (`<td`, `markdownTable...` shown as characters);
- a backtick in running text: a code span Doxygen did not close (an apostrophe or a line break
  inside a span flips code and prose for the rest of the paragraph);
- Markdown link syntax left as text (`[text](target)` shown as characters);
- a link to a page that is not there, or to an anchor the page does not have; an image that is
  not there;
- with the repository root and Doxygen's inputs (pages, headers, folders of them): a `\\snippet`
  whose code appears on no page (it did not resolve, or resolved to nothing).
Code blocks and code spans are not searched for text findings: they may show any of these.
"""
import html
import html.parser
import os
import re
import sys
import urllib.parse

DOXYGEN_COMMAND = re.compile(
    r"\\(ilinebr|snippet|ref|htmlonly|endhtmlonly|code|endcode|dot|enddot|subpage|anchor|image|"
    r"include|verbatim|endverbatim|details|brief|note|warning)\b")
TABLE_MARKUP = re.compile(r"</?t[dhr][ >]|markdownTable")
MARKDOWN_LINK = re.compile(r"\]\([^)\s]+\)")
# Pages of Doxygen's own machinery, not the project's text.
SKIP_PAGES = re.compile(r"^(search/|.*_source\.html$|.*-members\.html$|navtree|globals|functions|namespacemembers)")


class Page(html.parser.HTMLParser):
    """One rendered page: its ids, its links, and its running text with where each piece was."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids, self.links, self.images, self.text, self.code_text = set(), [], [], [], []
        self.stack = []  # open elements: (tag, is-code, is-Doxygen's-summary)
        self.in_code = 0
        self.heading = ""  # the last heading seen, to say where a finding is

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name"):
            if a.get(key):
                self.ids.add(a[key])
        classes = (a.get("class") or "").split()
        if tag == "a" and a.get("href") and not self.in_summary():
            self.links.append((a["href"], self.heading.strip()))
        if tag == "img" and a.get("src"):
            self.images.append((a["src"], self.heading.strip()))
        if tag == "object" and a.get("data"):  # how Doxygen shows an SVG
            self.images.append((a["data"], self.heading.strip()))
        code = tag in ("code", "pre", "script", "style") or "fragment" in classes or "line" in classes
        if tag in ("br", "img", "hr", "meta", "link", "input"):
            return
        self.stack.append((tag, code, "summary" in classes))
        self.in_code += code
        if tag in ("h1", "h2", "h3", "h4"):
            self.heading = ""

    def handle_endtag(self, tag):
        while self.stack:
            t, code, _ = self.stack.pop()
            self.in_code -= code
            if t == tag:
                break

    def in_summary(self):
        """Inside the links Doxygen puts atop a class's page to its own sections."""
        return any(s for _, _, s in self.stack)

    def handle_data(self, data):
        if self.stack and self.stack[-1][0] in ("h1", "h2", "h3", "h4"):
            self.heading += data
        (self.code_text if self.in_code else self.text).append((data, self.heading.strip()))


def parse(path):
    p = Page()
    with open(path, encoding="utf-8", errors="replace") as f:
        p.feed(f.read())
    return p


def sources(inputs):
    """The pages and headers Doxygen read: the files given, and those in the folders given."""
    for path in inputs:
        if os.path.isfile(path):
            yield path
        for folder, _, files in os.walk(path):
            for name in sorted(files):
                if name.endswith((".md", ".hpp", ".cuh")):
                    yield os.path.join(folder, name)


def snippets(root, inputs):
    """(source, file, marker, the snippet's code lines) for every \\snippet in `inputs`."""
    found = []
    for src in sources(inputs):
        with open(src, encoding="utf-8", errors="replace") as f:
            text = f.read()
        for m in re.finditer(r"[\\@]snippet(?:\{[^}]*\})?[ \t]+(\S+)[ \t]+([^\n]*\S)", text):
            target = os.path.join(root, m.group(1))
            lines = []
            if os.path.isfile(target):
                with open(target, encoding="utf-8", errors="replace") as f:
                    body = f.read().split("//! [" + m.group(2) + "]")
                if len(body) >= 3:
                    lines = [l.strip() for l in body[1].split("\n") if len(l.strip()) > 8]
            found.append((os.path.relpath(src, root), m.group(1), m.group(2), lines))
    return found


def main():
    out = sys.argv[1]
    root = sys.argv[2] if len(sys.argv) > 2 else None
    inputs = sys.argv[3:]
    pages = {}
    for folder, _, files in os.walk(out):
        for name in files:
            if name.endswith(".html"):
                rel = os.path.relpath(os.path.join(folder, name), out)
                pages[rel] = parse(os.path.join(folder, name))

    findings = []
    for rel, p in sorted(pages.items()):
        if SKIP_PAGES.match(rel):
            continue
        for data, where in p.text:
            at = f" (under \"{where}\")" if where else ""
            for rule, what in ((DOXYGEN_COMMAND, "Doxygen markup shown as text"),
                               (TABLE_MARKUP, "table markup shown as text"),
                               (MARKDOWN_LINK, "Markdown link shown as text")):
                m = rule.search(data)
                if m:
                    findings.append(f"{rel}: {what}: {data.strip()[:120]!r}{at}")
            if "`" in data:
                findings.append(f"{rel}: a backtick in running text (a code span that did not close): "
                                f"{data.strip()[:120]!r}{at}")
        for href, where in p.links:
            url = urllib.parse.urlparse(href)
            if url.scheme or href.startswith(("mailto:", "javascript:")):
                continue
            target = os.path.normpath(os.path.join(os.path.dirname(rel), url.path)) if url.path else rel
            at = f" (under \"{where}\")" if where else ""
            if target not in pages:
                findings.append(f"{rel}: a link to a page that is not there: {href}{at}")
            elif url.fragment and html.unescape(url.fragment) not in pages[target].ids:
                findings.append(f"{rel}: a link to an anchor {target} does not have: {href}{at}")

        for src, where in p.images:
            url = urllib.parse.urlparse(src)
            if url.scheme or src.startswith("data:"):
                continue
            at = f" (under \"{where}\")" if where else ""
            if not os.path.isfile(os.path.normpath(os.path.join(out, os.path.dirname(rel), url.path))):
                findings.append(f"{rel}: an image that is not there: {src}{at}")

    if root:
        # A code line's words are split across links and spans: compare without any spacing.
        shown = re.sub(r"\s+", "", "".join(d for p in pages.values() for d, _ in p.code_text))
        for src, file, marker, lines in snippets(root, inputs):
            if not lines or not any(re.sub(r"\s+", "", l) in shown for l in lines):
                findings.append(f"{src}: \\snippet {file} {marker} shows no code on any page "
                                f"(the file or its //! [{marker}] markers are missing)")

    for f in findings:
        print(f)
    print(f"check_rendered: {len(pages)} pages, {len(findings)} finding(s)")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
