"""Tests of docs/check_rendered.py: it must pass a page that renders right and name each fault of
one that renders wrong (an unclosed code span, a dead anchor, a missing page, an unresolved
snippet). Renders tests/docs/pages/ with the project's Doxygen set-up (its Markdown filter).

    python3 tests/docs/check_rendered_test.py <doxygen> <python3> <repository root> <scratch folder>
"""
import os
import shutil
import subprocess
import sys

doxygen, python, root, scratch = sys.argv[1:5]
shutil.rmtree(scratch, ignore_errors=True)
os.makedirs(scratch)
pages = os.path.join(root, "tests", "docs", "pages")
with open(os.path.join(scratch, "Doxyfile"), "w") as f:
    f.write(f"""INPUT = "{pages}/good.md" "{pages}/broken.md"
OUTPUT_DIRECTORY = "{scratch}"
STRIP_FROM_PATH = "{root}"
FILE_PATTERNS = *.md
EXAMPLE_PATH = "{root}"
IMAGE_PATH = "{pages}"
FILTER_PATTERNS = "*.md={python} {root}/docs/md_filter.py {root}"
GENERATE_LATEX = NO
GENERATE_TREEVIEW = YES
QUIET = YES
WARN_LOGFILE = "{scratch}/warnings.log"
""")
subprocess.run([doxygen, "Doxyfile"], cwd=scratch, check=True)
run = subprocess.run([python, os.path.join(root, "docs", "check_rendered.py"), os.path.join(scratch, "html"),
                      root, os.path.join(pages, "good.md"), os.path.join(pages, "broken.md")],
                     capture_output=True, text=True)
print(run.stdout, end="")
findings = [l for l in run.stdout.splitlines() if not l.startswith("check_rendered:")]

failed = []
def expect(what, pred):
    if not pred:
        failed.append(what)

expect("the broken page fails the check", run.returncode == 1)
expect("nothing is found on the good page", not [l for l in findings if "good" in l])
expect("the unclosed code span is found",
       any("tests_docs_pages_broken" in l and "backtick" in l for l in findings))
expect("the link to a heading that is not there is found", any("no-such-heading" in l for l in findings))
expect("the link to a page that is not there is found", any("missing" in l for l in findings))
expect("the missing image is found", any("an image that is not there" in l and "absent.svg" in l for l in findings))
expect("the unresolved snippet is found", any("broken.md" in l and "absent" in l for l in findings))
for f in failed:
    print("FAILED:", f)
sys.exit(1 if failed else 0)
