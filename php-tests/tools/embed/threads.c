/*
 * The host program of the embedding test (php-tests/tools/embed-zts.sh): a
 * thread-safe PHP's embed SAPI in one process, and threads of this program
 * entering PHP the way FrankenPHP's do. PHP is started once on the main
 * thread; each other thread takes a TSRM context of its own (ts_resource)
 * and then serves PHP requests on it, one after another, each running the
 * file given. rediskit comes from the php.ini that PHPRC names.
 *
 *   threads FILE THREADS REQUESTS_PER_THREAD
 *
 * Prints "requests: N started, N ended, N bailed out" and exits 0 when
 * every request started and ended without a bailout (a fatal error).
 */
#include <sapi/embed/php_embed.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static const char *file;
static int per_thread;
static int started, ended, bailouts;
static pthread_mutex_t counts = PTHREAD_MUTEX_INITIALIZER;

static void add(int *what)
{
	pthread_mutex_lock(&counts);
	(*what)++;
	pthread_mutex_unlock(&counts);
}

static void *serve(void *unused)
{
	char code[4096];
	(void)unused;
	snprintf(code, sizeof code, "require %s;", file);
	(void)ts_resource(0);
	for (int i = 0; i < per_thread; i++) {
		if (php_request_startup() == FAILURE) {
			continue;
		}
		add(&started);
		int ok = 0;
		zend_first_try {
			zend_eval_string(code, NULL, "embed-thread");
			ok = 1;
		} zend_catch {
			add(&bailouts);
		} zend_end_try();
		php_request_shutdown(NULL);
		if (ok) {
			add(&ended);
		}
	}
	ts_free_thread();
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: %s FILE THREADS REQUESTS_PER_THREAD\n", argv[0]);
		return 2;
	}
	/* a PHP string literal of the file's path */
	static char quoted[2048];
	snprintf(quoted, sizeof quoted, "'%s'", argv[1]);
	file = quoted;
	int n = atoi(argv[2]);
	per_thread = atoi(argv[3]);
	if (n < 1 || n > 256 || per_thread < 1) {
		fprintf(stderr, "bad THREADS or REQUESTS_PER_THREAD\n");
		return 2;
	}
	if (php_embed_init(argc, argv) == FAILURE) {
		fprintf(stderr, "php_embed_init failed\n");
		return 1;
	}
	pthread_t *t = calloc((size_t)n, sizeof *t);
	for (int i = 0; i < n; i++) {
		if (pthread_create(&t[i], NULL, serve, NULL) != 0) {
			fprintf(stderr, "pthread_create failed\n");
			return 1;
		}
	}
	for (int i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
	}
	free(t);
	php_embed_shutdown();
	printf("requests: %d started, %d ended, %d bailed out\n", started, ended, bailouts);
	return started == n * per_thread && ended == started && bailouts == 0 ? 0 : 1;
}
