// SPDX-License-Identifier: GPL-2.0
/* Per-CPU perf software events with a BPF program attached (see perf_events.h). */
#include "perf_events.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <bpf/libbpf.h>

int perf_events_attach(struct perf_event_links *pel, struct bpf_program *prog,
		       unsigned long long config)
{
	/* One sample per event: the program sees each, and its return of 0 keeps perf from
	 * writing the sample (there is no buffer to write it to anyway). No frequency mode, so
	 * the kernel's sample-rate limit does not apply; a single event never throttles. */
	struct perf_event_attr attr = {
	    .type = PERF_TYPE_SOFTWARE,
	    .size = sizeof(attr),
	    .config = config,
	    .sample_period = 1,
	};
	int nr_cpus = libbpf_num_possible_cpus();
	int err = 0;

	pel->nr = 0;
	if (nr_cpus < 0)
		return nr_cpus;
	pel->links = calloc(nr_cpus, sizeof(*pel->links));
	if (!pel->links)
		return -ENOMEM;
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		int fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		struct bpf_link *link;

		if (fd < 0 && errno == ENODEV)
			continue; /* a possible CPU that is offline */
		if (fd < 0) {
			err = -errno;
			break;
		}
		link = bpf_program__attach_perf_event(prog, fd);
		if (!link) {
			err = -errno;
			close(fd);
			break;
		}
		pel->links[pel->nr++] = link; /* the link owns the event's fd from here */
	}
	if (err)
		perf_events_detach(pel);
	return err;
}

void perf_events_detach(struct perf_event_links *pel)
{
	for (int i = 0; i < pel->nr; i++)
		bpf_link__destroy(pel->links[i]);
	free(pel->links);
	pel->links = NULL;
	pel->nr = 0;
}
