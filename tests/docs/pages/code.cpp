// The code the pages show.
//! [present]
int shown_on_the_good_page(int value) { return value * 3; }
//! [present]
