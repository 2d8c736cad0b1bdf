/* IPv6 for Debian's sockperf 3.7, which parses IPv4 addresses only (IPv6 came with sockperf 3.8).
 *
 * Loaded with LD_PRELOAD, it makes sockperf's AF_INET sockets AF_INET6 and translates the addresses sockperf
 * passes and gets back. sockperf is given placeholder IPv4 addresses; VNETBENCH_INET6 maps them to the real
 * IPv6 ones, "192.0.2.1=2001:db8::1[,...]". 0.0.0.0 is the IPv6 "any" address. An IPv6 peer without an
 * entry (the client seen by a UDP server) gets a fresh placeholder from 198.51.100.0/24, so the server's
 * reply to that placeholder goes to the peer.
 *
 * It replaces exactly the calls sockperf 3.7 makes with addresses in ping-pong and server mode, UDP and TCP
 * (seen with strace): socket, bind, connect, accept, sendto and recvfrom. setsockopt(TCP_NODELAY), listen
 * and close need no translation. sockperf resolves these through dlsym(RTLD_DEFAULT), which finds ours first.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define MAX_FDS 65536    /* fds above this are left as they are */
#define MAX_PEERS 254    /* entries of the placeholder table, given and learned: a learned one is
                            198.51.100.(its index + 1), so all stay inside the /24 */

static unsigned char kind[MAX_FDS];    /* SOCK_DGRAM or SOCK_STREAM for a socket we made AF_INET6, else 0 */
static struct { struct in_addr v4; struct in6_addr v6; } table[MAX_PEERS];
static int entries;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static int ours(int fd) { return fd >= 0 && fd < MAX_FDS ? kind[fd] : 0; }

static void mark(int fd, int type) {
    if (fd >= 0 && fd < MAX_FDS)
        kind[fd] = (unsigned char)type;
}

/* Read VNETBENCH_INET6 before main; a bad entry ends sockperf with one line naming it. */
__attribute__((constructor)) static void load_map(void) {
    const char *env = getenv("VNETBENCH_INET6");
    char *copy = strdup(env ? env : ""), *save = NULL;
    for (char *pair = strtok_r(copy, ",", &save); pair; pair = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(pair, '=');
        if (eq) *eq = '\0';
        if (!eq || entries == MAX_PEERS || inet_pton(AF_INET, pair, &table[entries].v4) != 1 ||
            inet_pton(AF_INET6, eq + 1, &table[entries].v6) != 1) {
            fprintf(stderr, "sockperf_inet6: VNETBENCH_INET6 entry '%s' is not IPV4_PLACEHOLDER=IPV6\n", pair);
            exit(2);
        }
        entries++;
    }
    free(copy);
}

/* The IPv6 address for a placeholder; 0 when sockperf names an address that has none. */
static int to_v6(const struct sockaddr *sa, socklen_t len, struct sockaddr_in6 *out) {
    const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
    if (len < sizeof *in) return 0;
    memset(out, 0, sizeof *out);
    out->sin6_family = AF_INET6;
    out->sin6_port = in->sin_port;
    if (in->sin_addr.s_addr == htonl(INADDR_ANY)) {
        out->sin6_addr = in6addr_any;
        return 1;
    }
    int found = 0;
    pthread_mutex_lock(&table_lock);
    for (int i = 0; i < entries && !found; i++)
        if (table[i].v4.s_addr == in->sin_addr.s_addr) {
            out->sin6_addr = table[i].v6;
            found = 1;
        }
    pthread_mutex_unlock(&table_lock);
    return found;
}

/* The placeholder for an IPv6 address, learning a new one for a peer not in the table. */
static void to_v4(const struct sockaddr_in6 *in6, struct sockaddr_in *out) {
    memset(out, 0, sizeof *out);
    out->sin_family = AF_INET;
    out->sin_port = in6->sin6_port;
    pthread_mutex_lock(&table_lock);
    int i = 0;
    while (i < entries && memcmp(&table[i].v6, &in6->sin6_addr, sizeof in6->sin6_addr) != 0)
        i++;
    if (i == entries && entries < MAX_PEERS) {    /* a new peer: 198.51.100.1, .2, ... */
        table[i].v4.s_addr = htonl(0xC6336400u + (uint32_t)(i + 1));
        table[i].v6 = in6->sin6_addr;
        entries++;
    }
    out->sin_addr = i < entries ? table[i].v4 : (struct in_addr){htonl(INADDR_NONE)};
    pthread_mutex_unlock(&table_lock);
}

/* Hand an IPv6 address the kernel filled in back to sockperf as its placeholder (or nothing, for TCP's
 * recvfrom, which fills in no address). */
static void give_back(const struct sockaddr_in6 *got, socklen_t got_len, struct sockaddr *addr, socklen_t *len) {
    if (!addr || !len) return;
    if (got_len < sizeof *got || got->sin6_family != AF_INET6) {
        *len = 0;
        return;
    }
    struct sockaddr_in v4;
    to_v4(got, &v4);
    memcpy(addr, &v4, *len < sizeof v4 ? *len : sizeof v4);
    *len = sizeof v4;
}

#define REAL(name) static __typeof__(name) *real; if (!real) real = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

int socket(int domain, int type, int protocol) {
    REAL(socket);
    int fd = real(domain == AF_INET ? AF_INET6 : domain, type, protocol);
    mark(fd, domain == AF_INET ? type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC) : 0);
    return fd;
}

/* bind and connect share this: an AF_INET address on our socket becomes its IPv6 address. */
static int with_v6(int (*call)(int, const struct sockaddr *, socklen_t), int fd, const struct sockaddr *addr,
                   socklen_t len) {
    if (!ours(fd) || !addr || addr->sa_family != AF_INET) return call(fd, addr, len);
    struct sockaddr_in6 v6;
    if (!to_v6(addr, len, &v6)) {
        errno = EADDRNOTAVAIL;
        return -1;
    }
    return call(fd, (struct sockaddr *)&v6, sizeof v6);
}

int bind(int fd, const struct sockaddr *addr, socklen_t len) {
    REAL(bind);
    return with_v6(real, fd, addr, len);
}

int connect(int fd, const struct sockaddr *addr, socklen_t len) {
    REAL(connect);
    return with_v6(real, fd, addr, len);
}

int accept(int fd, struct sockaddr *addr, socklen_t *len) {
    REAL(accept);
    if (!ours(fd)) {
        int conn = real(fd, addr, len);
        mark(conn, 0);
        return conn;
    }
    struct sockaddr_in6 got;
    socklen_t got_len = sizeof got;
    int conn = real(fd, (struct sockaddr *)&got, &got_len);
    if (conn >= 0) {
        mark(conn, SOCK_STREAM);
        give_back(&got, got_len, addr, len);
    }
    return conn;
}

ssize_t sendto(int fd, const void *buf, size_t n, int flags, const struct sockaddr *addr, socklen_t len) {
    REAL(sendto);
    /* only datagrams go where the address says: a stream socket is connected and the kernel ignores it
     * (sockperf's TCP server passes an uninitialised one) */
    if (ours(fd) != SOCK_DGRAM || !addr || addr->sa_family != AF_INET) return real(fd, buf, n, flags, addr, len);
    struct sockaddr_in6 v6;
    if (!to_v6(addr, len, &v6)) {
        errno = EADDRNOTAVAIL;
        return -1;
    }
    return real(fd, buf, n, flags, (struct sockaddr *)&v6, sizeof v6);
}

ssize_t recvfrom(int fd, void *buf, size_t n, int flags, struct sockaddr *addr, socklen_t *len) {
    REAL(recvfrom);
    if (!ours(fd) || !addr) return real(fd, buf, n, flags, addr, len);
    struct sockaddr_in6 got;
    socklen_t got_len = sizeof got;
    ssize_t r = real(fd, buf, n, flags, (struct sockaddr *)&got, &got_len);
    if (r >= 0) give_back(&got, got_len, addr, len);
    return r;
}
