// Compiled only by the test layers.backward_include_fails, in the lowest stage (strace): a
// header of a stage above it must not be found. Never part of the build.
#include "fsmove/analysis/analyzer.h"
