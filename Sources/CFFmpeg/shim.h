#ifndef CFFMPEG_SHIM_H
#define CFFMPEG_SHIM_H
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libswresample/swresample.h>
#include <libavutil/opt.h>
#include <libavutil/channel_layout.h>
#include <libavutil/samplefmt.h>
#include <libavutil/error.h>

/* AVERROR(EAGAIN) and AVERROR_EOF are macros Swift cannot import. */
static inline int cffmpeg_error_again(void) { return AVERROR(EAGAIN); }
static inline int cffmpeg_error_eof(void) { return AVERROR_EOF; }
#endif
