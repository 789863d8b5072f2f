#ifndef CHYPHEN_SHIM_H
#define CHYPHEN_SHIM_H
/* libhyphen (Hunspell's hyphenation library, as LibreOffice uses it): it has no pkg-config file,
   so the module map links it by name. */
#include <hyphen.h>
#endif
