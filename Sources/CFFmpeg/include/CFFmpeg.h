#ifndef CFFMPEG_H
#define CFFMPEG_H
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

/* FFmpeg's libraries are opened when a recording is first needed, not when the program starts:
 * linked, they brought in some 180 more libraries (codecs, X11, Vulkan, fonts…), and binding
 * their symbols took about 85 ms of every start of the program and of each export worker.
 * Returns 0 once they are open; otherwise -1, with the loader's reason in `why`. The av_*,
 * avcodec_*, avformat_*, avfilter_* and swr_* functions the program calls may be called only
 * after a 0. */
int cffmpeg_load(char *why, unsigned long size);
#endif
