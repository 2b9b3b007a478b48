// The grader of a chapter that cannot be built here (e.g. chapter 05 without libtorch): it says
// so, as a verdict the grade command shows, and never as a pass.
#include <cstdlib>
#include <fstream>
#include <iostream>

int main() {
  std::cout << "\n==== " WB_CHAPTER_ID " (" WB_CHAPTER_TITLE ") ====\n  verdict: skipped: " WB_SKIP_REASON "\n";
  if (const char* path = std::getenv("WB_STATUS_FILE")) std::ofstream(path) << "skipped\t" WB_SKIP_REASON "\t\n";
  return 0;
}
