/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "dr_app.h"
#include "dr_verbs.h"

int
dr_app_split_args(int argc, char **argv, int *own_argc, char ***own_argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			argv[i] = argv[0];
			*own_argc = argc - i;
			*own_argv = argv + i;
			return i;
		}
	}
	*own_argc = argc;
	*own_argv = argv;
	return 0;
}

static volatile sig_atomic_t *stop_flag;

static void
on_signal(int sig)
{
	(void)sig;
	*stop_flag = 1;
}

void
dr_app_stop_on_signals(volatile sig_atomic_t *flag, bool sigpipe)
{
	struct sigaction sa = { .sa_handler = on_signal };

	stop_flag = flag;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (sigpipe)
		sigaction(SIGPIPE, &sa, NULL);
}

int
dr_app_add_ipv6(const char *prog, const char *arg, uint8_t (*addrs)[16], unsigned int max,
		unsigned int *num)
{
	static const uint8_t zero[16];
	static const uint8_t v4mapped[12] = { [10] = 0xFF, [11] = 0xFF };
	uint8_t a[16];

	if (inet_pton(AF_INET6, arg, a) != 1) {
		fprintf(stderr, "%s: --ipv6 %s: not an IPv6 address\n", prog, arg);
		return -1;
	}
	if (memcmp(a, zero, 16) == 0 || a[0] == 0xFF || memcmp(a, v4mapped, 12) == 0) {
		fprintf(stderr, "%s: --ipv6 %s: not a unicast IPv6 address of our own "
			"(::, multicast and IPv4-mapped are not)\n", prog, arg);
		return -1;
	}
	if (*num >= max) {
		fprintf(stderr, "%s: --ipv6 %s: at most %u IPv6 addresses (GID indexes 2..%u)\n",
			prog, arg, max, max + 1);
		return -1;
	}
	memcpy(addrs[(*num)++], a, 16);
	return 0;
}

void
dr_app_context_attr(struct dr_context_attr *attr, uint32_t ipv4, const uint8_t (*ipv6)[16],
		    unsigned int num_ipv6, uint32_t link_mtu)
{
	memset(attr, 0, sizeof(*attr));
	attr->ipv4_addr = ipv4;
	if (num_ipv6 > RTE_DIM(attr->ipv6_addr))
		num_ipv6 = RTE_DIM(attr->ipv6_addr);
	memcpy(attr->ipv6_addr, ipv6, num_ipv6 * sizeof(attr->ipv6_addr[0]));
	attr->num_ipv6 = num_ipv6;
	attr->mtu = link_mtu;
	attr->configure_port = 1;
	attr->mode = DR_PROGRESS_INLINE;
}

int
dr_app_number(const char *s, unsigned long min, unsigned long max, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 0);
	return (errno != 0 || end == s || *end != '\0' || *v < min || *v > max) ? -1 : 0;
}
