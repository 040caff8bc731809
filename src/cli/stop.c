/* stop.c — a stop that output nobody reads cannot hold up. After Ctrl-C or SIGTERM kiln run,
 * kiln trace and a host session detach and print their last lines; when what they write to is
 * a pipe (or socket) nobody reads, the write blocks, and goes on blocking after the signal
 * (restarted, or glibc's stdio writing the rest of its buffer again): the stop would wait for
 * the reader. A watchdog thread, woken by the stop's signal handler, looks at what the main
 * thread is doing (/proc/self/task/TID/syscall): blocked in a write to such a file whose fill
 * has not moved for STALL_MS, that file is dropped: /dev/null takes its descriptor (and the
 * descriptors 1 and 2 when they are the same file) and a signal interrupts the write. The
 * stop then goes on as usual (detach, the final report, now into /dev/null), and the exit
 * status says interrupted (cli_stop_status). */
#define _GNU_SOURCE
#include "cli.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SAMPLE_MS 40
#define STALL_MS 240

static int wake_fd = -1;                 /* the signal handlers wake the watchdog through it */
static volatile sig_atomic_t stop_sig;   /* the first stop's signal */
static atomic_bool dropped;              /* some output was dropped */
static atomic_uint_fast64_t dropped_fds; /* which of the descriptors 0..63 */
static pid_t main_tid;
static pthread_t main_thread;
static const char *stop_cmd = "";

/* What the main thread is blocked in, when it is a write to a pipe or socket. */
struct sample {
	int fd;
	struct stat st;
	long fill;                  /* bytes queued in it (-1: unknown) */
	char line[256];             /* the whole syscall line: the call, its arguments, sp, pc */
};

static const long write_calls[] = {
	SYS_write, SYS_writev, SYS_pwrite64, SYS_pwritev, SYS_sendto, SYS_sendmsg,
};

static bool is_write_call(long nr)
{
	for (size_t i = 0; i < sizeof(write_calls) / sizeof(write_calls[0]); i++)
		if (nr == write_calls[i])
			return true;
	return false;
}

/* The bytes a pipe holds, or a socket has not sent (or seen read, for a Unix socket). */
static long fill_of(int fd, const struct stat *st)
{
	int n = -1;
	if (ioctl(fd, S_ISFIFO(st->st_mode) ? FIONREAD : SIOCOUTQ, &n))
		return -1;
	return n;
}

/* The descriptor the main thread is blocked writing to (its syscall line in line), or -1. */
static int blocked_fd(char *line, size_t size)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)main_tid);
	int f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return -1;
	ssize_t n = read(f, line, size - 1);
	close(f);
	if (n <= 0)
		return -1;
	line[n] = 0;
	char *end;
	long nr = strtol(line, &end, 10);   /* "running", or "-1 SP PC" outside a call */
	if (end == line || !is_write_call(nr))
		return -1;
	unsigned long long fd = strtoull(end, NULL, 16);
	return fd > INT32_MAX ? -1 : (int)fd;
}

static bool sample(struct sample *s)
{
	int fd = blocked_fd(s->line, sizeof(s->line));
	if (fd < 0 || fstat(fd, &s->st))
		return false;
	/* a file or a disk is slow, never unread; a terminal (a pty behind ssh) may be slow too,
	 * and its fill is not to be seen from here */
	if (!S_ISFIFO(s->st.st_mode) && !S_ISSOCK(s->st.st_mode))
		return false;
	s->fd = fd;
	s->fill = fill_of(s->fd, &s->st);
	return true;
}

static bool same_file(int fd, const struct stat *st)
{
	struct stat o;
	return !fstat(fd, &o) && o.st_dev == st->st_dev && o.st_ino == st->st_ino;
}

static void on_wake(int sig)
{
	(void)sig;   /* only there to interrupt the blocked write (no SA_RESTART) */
}

/* fd (and 1 and 2 where they are the same file) into /dev/null, the blocked write interrupted
 * so that glibc writes the rest there; a line on stderr when stderr is not the file. */
static void drop(const struct sample *s)
{
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null < 0)
		return;
	bool err_dropped = false;
	int fds[3] = { s->fd, 1, 2 };
	for (int i = 0; i < 3; i++) {
		if ((i && fds[i] == s->fd) || !same_file(fds[i], &s->st))
			continue;
		int fl = fcntl(fds[i], F_GETFD);
		dup3(null, fds[i], fl > 0 && (fl & FD_CLOEXEC) ? O_CLOEXEC : 0);
		if (fds[i] < 64)
			atomic_fetch_or(&dropped_fds, (uint_fast64_t)1 << fds[i]);
		err_dropped = err_dropped || fds[i] == 2;
	}
	close(null);
	atomic_store(&dropped, true);
	struct pollfd p = { .fd = 2, .events = POLLOUT };
	if (!err_dropped && poll(&p, 1, 0) == 1 && (p.revents & POLLOUT)) {
		char msg[160], fd[16];
		snprintf(fd, sizeof(fd), "fd %d", s->fd);
		int n = snprintf(msg, sizeof(msg), "kiln %s: %s is not being read; the rest of its output is dropped\n",
				 stop_cmd, s->fd == 1 ? "stdout" : fd);
		ssize_t w = n > 0 ? write(2, msg, (size_t)n) : 0;
		(void)w;   /* nothing more to tell it with */
	}
	struct sigaction sa = { .sa_handler = on_wake };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGURG, &sa, NULL);
	char line[256];
	if (blocked_fd(line, sizeof(line)) == s->fd)   /* still there: not some other call interrupted */
		pthread_kill(main_thread, SIGURG);
}

static void *watch(void *arg)
{
	int rfd = (int)(intptr_t)arg;
	char b;
	ssize_t r;
	while ((r = read(rfd, &b, 1)) < 0 && errno == EINTR)
		;
	if (r != 1)
		return NULL;
	struct sample last = { .fd = -1 }, s;
	int still = 0;
	for (;;) {
		nanosleep(&(struct timespec){ 0, SAMPLE_MS * 1000000L }, NULL);
		if (!sample(&s)) {
			last.fd = -1;
			still = 0;
			continue;
		}
		bool same = last.fd == s.fd && last.fill == s.fill && !strcmp(last.line, s.line);
		still = same ? still + 1 : 0;
		last = s;
		if (still * SAMPLE_MS >= STALL_MS) {
			drop(&s);
			last.fd = -1;
			still = 0;
		}
	}
	return NULL;
}

int cli_stop_watch(const char *cmd)
{
	if (wake_fd >= 0)
		return 0;
	int p[2];
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	fcntl(p[1], F_SETFL, O_NONBLOCK);   /* a signal handler never waits on it */
	stop_cmd = cmd;
	main_tid = (pid_t)syscall(SYS_gettid);
	main_thread = pthread_self();
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);   /* the thread takes no signals: they go to main */
	pthread_t t;
	int err = pthread_create(&t, NULL, watch, (void *)(intptr_t)p[0]);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		close(p[0]);
		close(p[1]);
		return -err;
	}
	pthread_detach(t);
	wake_fd = p[1];
	return 0;
}

void cli_stop_catch(const char *cmd, void (*handler)(int))
{
	cli_stop_watch(cmd);
	struct sigaction sa = { .sa_handler = handler, .sa_flags = SA_RESTART };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

void cli_stop_notify(int sig)
{
	int e = errno;
	if (!stop_sig)
		stop_sig = sig;
	if (wake_fd >= 0) {
		ssize_t w = write(wake_fd, "s", 1);
		(void)w;   /* full: the watchdog is awake already */
	}
	errno = e;
}

bool cli_stop_dropped(int fd)
{
	return fd >= 0 && fd < 64 && (atomic_load(&dropped_fds) >> fd & 1);
}

int cli_stop_status(int rc)
{
	fflush(stdout);   /* what exit() would write: it may be what nobody reads */
	return atomic_load(&dropped) && stop_sig ? 128 + stop_sig : rc;
}
