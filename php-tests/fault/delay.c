/*
 * rkf-delay: packet latency with jitter for the fault stage, for kernels
 * without sch_netem (CONFIG_NET_SCH_NETEM unset, as on this machine).
 *
 * iptables sends the packets of one network namespace to NFQUEUE queue Q
 * (`-j NFQUEUE --queue-num Q`); this program holds each packet for
 * DELAY_MS +/- JITTER_MS (uniform, drawn per packet, like `netem delay 50ms
 * 10ms`) and then lets it through (NF_ACCEPT), in the order the delays run
 * out, so jitter reorders packets as netem's does. Removing the iptables
 * rules ends the latency; packets already held are still released on time.
 *
 *   rkf-delay QUEUE DELAY_MS JITTER_MS      (milliseconds, fractions allowed: 0.1)
 *
 * Prints "ready" on stderr once bound to the queue. Runs until killed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/netfilter.h>
#include <libnetfilter_queue/libnetfilter_queue.h>

#define MAX_HELD 65536

static uint32_t held_id[MAX_HELD];
static uint64_t held_due[MAX_HELD];
static int held;
static uint64_t delay_ns, jitter_ns;

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int on_packet(struct nfq_q_handle *q, struct nfgenmsg *m, struct nfq_data *d, void *data)
{
    (void)m;
    (void)data;
    struct nfqnl_msg_packet_hdr *ph = nfq_get_msg_packet_hdr(d);
    if (!ph)
        return 0;
    uint32_t id = ntohl(ph->packet_id);
    if (held >= MAX_HELD) /* never drop: a full table lets packets through */
        return nfq_set_verdict(q, id, NF_ACCEPT, 0, NULL);
    uint64_t j = jitter_ns ? (uint64_t)random() % (2 * jitter_ns + 1) : 0;
    held_id[held] = id;
    held_due[held] = now_ns() + delay_ns - jitter_ns + j;
    held++;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s QUEUE DELAY_MS JITTER_MS\n", argv[0]);
        return 2;
    }
    int queue = atoi(argv[1]);
    delay_ns = (uint64_t)(atof(argv[2]) * 1e6);
    jitter_ns = (uint64_t)(atof(argv[3]) * 1e6);
    if (jitter_ns > delay_ns)
        jitter_ns = delay_ns;
    srandom((unsigned)(getpid() ^ now_ns()));

    struct nfq_handle *h = nfq_open();
    if (!h) {
        perror("rkf-delay: nfq_open");
        return 1;
    }
    struct nfq_q_handle *qh = nfq_create_queue(h, (uint16_t)queue, &on_packet, NULL);
    if (!qh) {
        perror("rkf-delay: nfq_create_queue");
        return 1;
    }
    /* only the packet id is needed, never the payload */
    if (nfq_set_mode(qh, NFQNL_COPY_META, 0) < 0 || nfq_set_queue_maxlen(qh, MAX_HELD) < 0) {
        perror("rkf-delay: nfq_set_mode");
        return 1;
    }
    /* room for bursts: an overrun would drop packets instead of delaying them */
    nfnl_rcvbufsiz(nfq_nfnlh(h), 8 << 20);
    int fd = nfq_fd(h);
    static char buf[1 << 16];
    fprintf(stderr, "ready\n");
    for (;;) {
        uint64_t t = now_ns();
        for (;;) { /* release every packet that is due, earliest first */
            int best = -1;
            for (int i = 0; i < held; i++)
                if (held_due[i] <= t && (best < 0 || held_due[i] < held_due[best]))
                    best = i;
            if (best < 0)
                break;
            nfq_set_verdict(qh, held_id[best], NF_ACCEPT, 0, NULL);
            held--;
            held_id[best] = held_id[held];
            held_due[best] = held_due[held];
        }
        int64_t wait = -1;
        for (int i = 0; i < held; i++) {
            int64_t w = (int64_t)(held_due[i] - t);
            if (wait < 0 || w < wait)
                wait = w;
        }
        /* ppoll: sub-millisecond delays (0.1 ms) are held that long, not a
           whole poll() millisecond */
        if (wait < 0)
            wait = 1000000000;
        struct timespec ts = {(time_t)(wait / 1000000000), (long)(wait % 1000000000)};
        struct pollfd p = {fd, POLLIN, 0};
        if (ppoll(&p, 1, &ts, NULL) > 0) {
            ssize_t n;
            while ((n = recv(fd, buf, sizeof buf, MSG_DONTWAIT)) > 0)
                nfq_handle_packet(h, buf, (int)n);
            if (n < 0 && errno == ENOBUFS)
                fprintf(stderr, "rkf-delay: queue overrun (packets dropped by the kernel)\n");
        }
    }
}
