/* libqpdf's C API (qpdf-c.h): read a PDF, reorder, remove, insert and rotate pages through
   object handles, and write it back with every untouched object preserved. */
#include <qpdf/qpdf-c.h>
