// Compiled only by the test layers.backward_include_fails, in a stage (analysis) that depends
// on the one whose header it includes (strace): the control that the probe's build works.
#include "fsmove/strace/line_reader.h"
