#include "unit.h"
const struct unit_test proc_text_tests[] = {{}};
