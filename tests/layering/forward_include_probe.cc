// Compiled only by the test layers.backward_include_fails, in a stage (analysis) that depends
// on the one whose header it includes (trace): the control that the probe's build works.
#include "fsmove/trace/line_reader.h"
