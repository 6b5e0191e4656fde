# Gzips every *.1 of DIR beside it (*.1.gz) as Debian ships manual pages: the best
# compression, no name or time stamp in the header, so the same page gives the same bytes.
# Usage: cmake -DDIR=build/man -P cmake/gzip_pages.cmake
find_program(GZIP gzip REQUIRED)
file(GLOB pages ${DIR}/*.1)
foreach(page ${pages})
  execute_process(COMMAND ${GZIP} -9 -n -k -f ${page} RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "gzip ${page} failed")
  endif()
endforeach()
