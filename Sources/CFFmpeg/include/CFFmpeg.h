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
static inline int cffmpeg_error_exit(void) { return AVERROR_EXIT; }

/* FFmpeg's libraries are opened when a recording is first needed, not when the program starts:
 * linked, they brought in some 180 more libraries (codecs, X11, Vulkan, fonts…), and binding
 * their symbols took about 85 ms of every start of the program and of each export worker.
 * Returns 0 once they are open; otherwise -1, with the loader's reason in `why`. The av_*,
 * avcodec_*, avformat_*, avfilter_* and swr_* functions the program calls may be called only
 * after a 0. */
int cffmpeg_load(char *why, unsigned long size);

/* A book's recording opened as the only way its audio may be read (input.c): from `fd`, a regular
 * file the caller opened (and closes after cffmpeg_close_recording), with the demuxer
 * `format_name` (mp3, mov, ogg, wav or flac: chosen by the caller from the file's first bytes),
 * never another file opened, every read refused once `milliseconds` have passed (0: no deadline)
 * or `*stop` (read atomically; may be NULL) is non-zero. 0 and `*out` set, or an AVERROR
 * (AVERROR_EXIT when the deadline or the stop cut it short). */
int cffmpeg_open_recording(AVFormatContext **out, int fd, const char *format_name, int64_t milliseconds, const int *stop);
/* `relative` opened for reading only if it is inside `folder` (openat2's RESOLVE_BENEATH: no
 * `..` nor symbolic link leading out), without blocking: a file descriptor, or -errno. */
int cffmpeg_open_beneath(const char *folder, const char *relative);
/* True once the recording's deadline passed or it was told to stop (a read was refused). */
int cffmpeg_recording_expired(AVFormatContext *context);
void cffmpeg_close_recording(AVFormatContext **context);
/* The stop flag cffmpeg_open_recording reads, raised from any thread. */
static inline void cffmpeg_raise_flag(int *flag) { __atomic_store_n(flag, 1, __ATOMIC_RELEASE); }
#endif
