/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef DR_APP_H
#define DR_APP_H

/*
 * What every dpdk-rdma program does the same way: split its command line
 * at "--" (DPDK's convention), stop on SIGINT/SIGTERM, take the port's IPv6
 * addresses (--ipv6), open its context with them.
 */

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

struct dr_context_attr;

/*
 * Split "PROG [EAL args] -- [own args]". Returns the number of EAL
 * arguments (PROG included: the index of "--"), or 0 when there is no "--"
 * and every argument is the program's own. *own_argc / *own_argv get the
 * program's own arguments with PROG first, ready for getopt: the "--" slot of
 * argv is overwritten with argv[0] for that (EAL is given the part before it).
 */
int dr_app_split_args(int argc, char **argv, int *own_argc, char ***own_argv);

/*
 * Make SIGINT and SIGTERM (and SIGPIPE when @sigpipe) set *@flag. No
 * SA_RESTART: a blocking call returns EINTR, so the program can end its
 * session in-band before it closes its port.
 */
void dr_app_stop_on_signals(volatile sig_atomic_t *flag, bool sigpipe);

/*
 * --ipv6 ADDR: append the unicast IPv6 address @arg (not ::, not multicast,
 * not IPv4-mapped) to @addrs, which holds *@num of at most @max
 * (dr_context_attr.ipv6_addr / num_ipv6: the n-th address is GID index
 * 2 + n). Returns 0, or -1 after printing why to stderr, prefixed by @prog.
 */
int dr_app_add_ipv6(const char *prog, const char *arg, uint8_t (*addrs)[16], unsigned int max,
		    unsigned int *num);

/* A whole unsigned number in [@min, @max] (base 0: 0x... allowed): 0, or -1. */
int dr_app_number(const char *s, unsigned long min, unsigned long max, unsigned long *v);

/*
 * The context every program opens: its port's IPv4 address @ipv4 (network
 * order, --ip: GID index 1), @num_ipv6 of the IPv6 addresses @ipv6 (--ipv6:
 * GID index 2, 3), the link MTU @link_mtu (--link-mtu; 0: the port's), the
 * port configured by the library, inline progress (the program's own thread
 * drives the transport). The other fields of @attr are zeroed.
 */
void dr_app_context_attr(struct dr_context_attr *attr, uint32_t ipv4, const uint8_t (*ipv6)[16],
			 unsigned int num_ipv6, uint32_t link_mtu);

#endif /* DR_APP_H */
