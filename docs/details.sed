# Doxygen input filter for the Markdown pages (see Doxyfile.in): a <details> block written for
# GitHub,
#   <details><summary>Hint 1: a nudge</summary>
#   (blank line, Markdown, blank line)
#   </details>
# becomes the same HTML inside \htmlonly[block], so Doxygen keeps the block whole and still
# renders the Markdown between. One line in, one line out: warnings keep their line numbers.
s|^<details><summary>(.*)</summary>[[:space:]]*$|\\htmlonly[block]<details><summary>\1</summary>\\endhtmlonly|
s|^</details>[[:space:]]*$|\\htmlonly[block]</details>\\endhtmlonly|
