#ifndef CLAME_SHIM_H
#define CLAME_SHIM_H
/* LAME, the MP3 encoder, for players that take no Opus. It has no pkg-config file: linked by name. */
#include <lame/lame.h>
#endif
