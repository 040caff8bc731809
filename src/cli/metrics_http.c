/* metrics_http.c — the HTTP side of `kiln run --metrics ADDR:PORT` (metrics.h): the listening
 * socket, bound before anything is loaded so that a port in use fails at once, then served by
 * libmicrohttpd from a polling thread of its own (epoll), never from kiln run's event loop:
 * a client that sends nothing, drips a byte at a time or never reads its answer holds a
 * connection slot, not a thread, and every connection is bounded:
 *   - a deadline for each request (REQUEST_S from the connection's start, or from the end of
 *     its last answer, to the end of this answer), which MHD lacks: a thread of ours shuts
 *     the socket down, and MHD closes the connection; one whose answer is stuck in the kernel
 *     (a client that does not read) is reset, as the FIN of a close would wait behind it;
 *   - MHD's idle timeout (IDLE_S without a byte either way), a backstop past the deadline;
 *   - CONN_LIMIT connections at once, PER_IP_LIMIT of them from one address;
 *   - headers in MEMORY_LIMIT bytes.
 * GET (or HEAD) /metrics answers the maps read now; another path 404, another method 405.
 * Stopping first stops accepting (quiesce), then closes every connection and joins the thread:
 * bounded whatever the clients do. The threads block the signals kiln run handles, which
 * stay with its main thread. */
#define _GNU_SOURCE
#include "metrics.h"
#include <dlfcn.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define CONN_LIMIT 1024u
#define PER_IP_LIMIT 768u
#define IDLE_S 15u
#define REQUEST_S 10.0
#define REAP_MS 200
#define MEMORY_LIMIT ((size_t)16384)
#define BACKLOG 1024

/* libmicrohttpd is opened when --metrics asks for it, not linked: loading it binds GnuTLS,
 * whose start-up (p11-kit and all) would cost every kiln command 1.6 ms of CPU, about what a
 * small compile takes whole (README.md, "Dependencies"). Its functions, by name: */
#define MHD_FUNCTIONS(X) X(MHD_start_daemon) X(MHD_stop_daemon) X(MHD_quiesce_daemon) \
	X(MHD_get_connection_info) X(MHD_create_response_from_buffer) X(MHD_add_response_header) \
	X(MHD_queue_response) X(MHD_destroy_response)
#define MHD_POINTER(f) __typeof__(f) *f;
static struct {
	MHD_FUNCTIONS(MHD_POINTER)
} mhd;
#define MHD_SYMBOL(f) { #f, (void **)&mhd.f },
static const struct {
	const char *name;
	void **fn;
} mhd_symbols[] = { MHD_FUNCTIONS(MHD_SYMBOL) };
#define MHD_SONAME "libmicrohttpd.so.12"   /* 0.9.x and 1.0.x alike */

/* 0, or -1 after printing why */
static int mhd_open(void)
{
	static void *lib;
	if (lib)
		return 0;
	void *h = dlopen(MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
	for (size_t i = 0; h && i < sizeof(mhd_symbols) / sizeof(mhd_symbols[0]); i++)
		if (!(*mhd_symbols[i].fn = dlsym(h, mhd_symbols[i].name))) {
			dlclose(h);
			h = NULL;
		}
	if (!h) {
		fprintf(stderr, "kiln run: --metrics needs libmicrohttpd (Debian's libmicrohttpd12): %s\n", dlerror());
		return -1;
	}
	lib = h;
	return 0;
}

int cli_metrics_listen(const char *spec)
{
	if (mhd_open())
		return -1;
	char host[256];
	const char *colon = strrchr(spec, ':');
	size_t hl = colon ? (size_t)(colon - spec) : 0;
	if (!colon || !colon[1] || hl >= sizeof(host)) {
		fprintf(stderr, "kiln run: --metrics '%s' is not ADDR:PORT\n", spec);
		return -1;
	}
	memcpy(host, spec, hl);
	host[hl] = 0;
	if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') {
		memmove(host, host + 1, hl - 2);
		host[hl - 2] = 0;
	}
	/* :PORT is every address of both families: an IPv6 socket that takes IPv4 too (as
	 * MHD_USE_DUAL_STACK makes it), or IPv4 alone where the kernel has no IPv6 */
	struct addrinfo hints = { .ai_family = *host ? AF_UNSPEC : AF_INET6, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE };
	struct addrinfo *ai;
	int err = getaddrinfo(*host ? host : NULL, colon + 1, &hints, &ai);
	if (err) {
		fprintf(stderr, "kiln run: --metrics '%s': %s\n", spec, gai_strerror(err));
		return -1;
	}
	int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 && !*host && errno == EAFNOSUPPORT) {
		freeaddrinfo(ai);
		hints.ai_family = AF_INET;
		if ((err = getaddrinfo(NULL, colon + 1, &hints, &ai))) {
			fprintf(stderr, "kiln run: --metrics '%s': %s\n", spec, gai_strerror(err));
			return -1;
		}
		fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	}
	int one = 1, zero = 0;
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    (ai->ai_family == AF_INET6 && !*host && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero))) ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, BACKLOG)) {
		fprintf(stderr, "kiln run: --metrics %s: cannot listen: %s\n", spec, strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	return fd;
}

/* A connection open, and when its request must be answered by. */
struct conn {
	int fd;
	double deadline;
	bool cut;
	struct conn *prev, *next;
};

struct cli_metrics_server {
	struct MHD_Daemon *d;
	struct cli_metrics_plan *plan;
	pthread_mutex_t scrape;   /* one scrape at a time: the plan's map handles */
	pthread_mutex_t lock;     /* conns, stopping */
	pthread_cond_t wake;
	struct conn *conns;
	bool stopping;
	pthread_t reaper;
	bool reaping;
};

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* MHD's thread: a connection starts (listed with its deadline) or ends (taken off the list
 * before MHD closes its socket, so the reaper never shuts down a number reused since). */
static void on_connection(void *cls, struct MHD_Connection *c, void **ctx, enum MHD_ConnectionNotificationCode what)
{
	struct cli_metrics_server *s = cls;
	struct conn *k = *ctx;
	if (what == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *info = mhd.MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		if (!info || !(k = calloc(1, sizeof(*k))))
			return;   /* no deadline of ours: MHD's idle timeout still ends it */
		k->fd = info->connect_fd;
		k->deadline = now() + REQUEST_S;
		pthread_mutex_lock(&s->lock);
		k->next = s->conns;
		if (s->conns)
			s->conns->prev = k;
		s->conns = k;
		pthread_mutex_unlock(&s->lock);
		*ctx = k;
	} else if (k) {
		pthread_mutex_lock(&s->lock);
		if (k->prev)
			k->prev->next = k->next;
		else
			s->conns = k->next;
		if (k->next)
			k->next->prev = k->prev;
		pthread_mutex_unlock(&s->lock);
		free(k);
		*ctx = NULL;
	}
}

/* MHD's thread: an answer sent; the connection's next request gets a deadline of its own */
static void on_completed(void *cls, struct MHD_Connection *c, void **req, enum MHD_RequestTerminationCode how)
{
	struct cli_metrics_server *s = cls;
	const union MHD_ConnectionInfo *info = mhd.MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct conn *k = info ? info->socket_context : NULL;
	if (!k)
		return;
	pthread_mutex_lock(&s->lock);
	k->deadline = now() + REQUEST_S;
	pthread_mutex_unlock(&s->lock);
}

/* Our thread: every connection past its deadline shut down (MHD then reads the end and
 * closes it), a few times a second, until stopped. */
static void *reap(void *arg)
{
	struct cli_metrics_server *s = arg;
	pthread_mutex_lock(&s->lock);
	while (!s->stopping) {
		double t = now();
		for (struct conn *k = s->conns; k; k = k->next)
			if (!k->cut && t >= k->deadline) {
				int queued = 0;
				if (!ioctl(k->fd, SIOCOUTQ, &queued) && queued > 0)
					setsockopt(k->fd, SOL_SOCKET, SO_LINGER, &(struct linger){ 1, 0 },
						   sizeof(struct linger));
				shutdown(k->fd, SHUT_RDWR);
				k->cut = true;
			}
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += REAP_MS * 1000000L;
		until.tv_sec += until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		pthread_cond_timedwait(&s->wake, &s->lock, &until);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

static const char prom_type[] = "text/plain; version=0.0.4; charset=utf-8";

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type, char *body, size_t len,
			     enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = mhd.MHD_create_response_from_buffer(len, body, mode);
	if (!r) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free(body);
		return MHD_NO;   /* MHD closes the connection */
	}
	mhd.MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		mhd.MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	enum MHD_Result ok = mhd.MHD_queue_response(c, status, r);
	mhd.MHD_destroy_response(r);
	return ok;
}

#define STATIC_BODY(s) (char *)(s), sizeof(s) - 1, MHD_RESPMEM_PERSISTENT

/* MHD's thread: called once the request's headers are in (url: the path without its ?query),
 * then with its body, then once more at its end. Another method is refused at once, which
 * closes the connection (MHD reads no body after an early answer); a GET or HEAD is answered
 * at the end of the request, which keeps the connection alive for the next scrape. */
static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *upload, size_t *upload_size, void **req)
{
	static char headers_in;
	struct cli_metrics_server *s = cls;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", STATIC_BODY("GET only\n"));
	if (!*req) {
		*req = &headers_in;
		return MHD_YES;
	}
	if (*upload_size) {   /* a GET with a body: not read */
		*upload_size = 0;
		return MHD_YES;
	}
	if (strcmp(url, "/metrics"))
		return reply(c, MHD_HTTP_NOT_FOUND, "text/plain", STATIC_BODY("not found: /metrics only\n"));
	char *body = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&body, &len);
	if (!out)
		return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain", STATIC_BODY("kiln: out of memory\n"));
	pthread_mutex_lock(&s->scrape);
	int err = cli_metrics_write(out, s->plan);
	pthread_mutex_unlock(&s->scrape);
	if (fclose(out) || err) {   /* the text so far is no exposition: say why instead */
		free(body);
		if (!err || err == -ENOMEM || asprintf(&body, "kiln: %s\n", kiln_errmsg()) < 0)
			return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain", STATIC_BODY("kiln: out of memory\n"));
		return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain", body, strlen(body), MHD_RESPMEM_MUST_FREE);
	}
	return reply(c, MHD_HTTP_OK, prom_type, body, len, MHD_RESPMEM_MUST_FREE);
}

/* Room for CONN_LIMIT connections beside kiln's own descriptors: the soft limit raised toward
 * the hard one if need be; the connection limit to fit what there is. */
static unsigned conn_limit(void)
{
	struct rlimit r;
	const rlim_t want = CONN_LIMIT + 512;
	if (getrlimit(RLIMIT_NOFILE, &r))
		return 64;
	if (r.rlim_cur < want && r.rlim_max > r.rlim_cur) {
		r.rlim_cur = r.rlim_max < want ? r.rlim_max : want;
		setrlimit(RLIMIT_NOFILE, &r);
		getrlimit(RLIMIT_NOFILE, &r);
	}
	return r.rlim_cur >= want ? CONN_LIMIT : r.rlim_cur > 320 ? (unsigned)r.rlim_cur - 256 : 64;
}

struct cli_metrics_server *cli_metrics_start(int lfd, struct cli_metrics_plan *plan)
{
	struct cli_metrics_server *s = calloc(1, sizeof(*s));   /* mhd_open() was done by listen */
	if (!s) {
		fprintf(stderr, "kiln run: --metrics: out of memory\n");
		close(lfd);
		cli_metrics_plan_free(plan);
		return NULL;
	}
	s->plan = plan;
	pthread_mutex_init(&s->scrape, NULL);
	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->wake, &ca);
	pthread_condattr_destroy(&ca);
	unsigned limit = conn_limit();
	/* the threads started here inherit a mask without kiln run's signals */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	s->d = mhd.MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ITC, 0, NULL, NULL, answer, s,
				MHD_OPTION_LISTEN_SOCKET, (MHD_socket)lfd,
				MHD_OPTION_CONNECTION_LIMIT, limit,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, limit < PER_IP_LIMIT ? limit : PER_IP_LIMIT,
				MHD_OPTION_CONNECTION_TIMEOUT, IDLE_S,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, MEMORY_LIMIT,
				MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
				MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
				MHD_OPTION_END);
	int terr = s->d ? pthread_create(&s->reaper, NULL, reap, s) : 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	s->reaping = s->d && !terr;
	if (!s->d || terr) {
		fprintf(stderr, "kiln run: --metrics: cannot start the HTTP server (libmicrohttpd)%s%s\n",
			terr ? ": " : "", terr ? strerror(terr) : "");
		if (!s->d)
			close(lfd);
		cli_metrics_stop(s);
		return NULL;
	}
	return s;
}

void cli_metrics_stop(struct cli_metrics_server *s)
{
	if (!s)
		return;
	if (s->d) {
		MHD_socket l = mhd.MHD_quiesce_daemon(s->d);   /* no new connections from here on */
		if (l != MHD_INVALID_SOCKET)
			close(l);
	}
	if (s->reaping) {
		pthread_mutex_lock(&s->lock);
		s->stopping = true;
		pthread_cond_signal(&s->wake);
		pthread_mutex_unlock(&s->lock);
		pthread_join(s->reaper, NULL);
	}
	if (s->d)
		mhd.MHD_stop_daemon(s->d);   /* closes every connection, joins MHD's thread */
	cli_metrics_plan_free(s->plan);
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->lock);
	pthread_mutex_destroy(&s->scrape);
	free(s);
}
