// SPDX-License-Identifier: GPL-2.0
/*
 * The option rows (option_rows.h): each option's names, value, group, --help text and
 * foliostat(8) text. `make docs` writes the man page's OPTIONS, the README's options table and
 * the bash completion's list from them; tests/integration_docs.sh checks those are current.
 */
#include "option_rows.h"

#include <stdio.h>

#include "options.h"
#include "series.h"

/* foliostat(8)'s text of each option, roff (below its heading, which the row makes). */

static const char man_duration[] =
	"One-shot mode: stop after\n"
	".I SECS\n"
	"seconds and print the summary.\n"
	"Fractions are allowed; the value must be greater than 0 and at most one year.\n"
	"Cannot be combined with\n"
	".I INTERVAL\n"
	"(use\n"
	".I COUNT\n"
	"to bound a streaming run).\n"
	"Without this option a one-shot run lasts until SIGINT or SIGTERM.\n";

static const char man_json[] =
	"Print one JSON object per record, each on a line of its own (NDJSON), instead of tables.\n"
	"See\n"
	".B JSON RECORD\n"
	"below.\n";

static const char man_format[] =
	"How records are written:\n"
	".B table\n"
	"(the default),\n"
	".B json\n"
	"(as\n"
	".BR \\-j ),\n"
	"or\n"
	".BR prometheus :\n"
	"the Prometheus text exposition of\n"
	".B \\-\\-listen\n"
	"(see\n"
	".BR foliostat\\-metrics (7)),\n"
	"whose counters count from foliostat's start, not per record.\n"
	"Rows are then per cgroup unless\n"
	".B \\-\\-by\n"
	"says otherwise.\n"
	"With\n"
	".B \\-\\-replace\n"
	".I FILE\n"
	"and an\n"
	".IR INTERVAL ,\n"
	"the file is replaced whole every\n"
	".IR INTERVAL ,\n"
	"as node_exporter's textfile collector wants its files (name it\n"
	".IB NAME .prom\n"
	"in the collector's directory; the file being written has another name, which the "
	"collector\n"
	"ignores).\n"
	"Not with\n"
	".BR \\-o :\n"
	"expositions appended one after another would not make one.\n";

static const char man_listen[] =
	"Serve the exposition at\n"
	".BI http:// HOST : PORT /metrics\n"
	"until SIGINT or SIGTERM (or\n"
	".BR \\-\\-duration ),\n"
	"in the Prometheus text format 0.0.4, or in OpenMetrics 1.0 when the scraper's\n"
	".B Accept\n"
	"header asks for\n"
	".B application/openmetrics-text\n"
	"(Prometheus does).\n"
	".B /\n"
	"is a page linking to\n"
	".BR /metrics ;\n"
	"other paths answer 404, methods other than GET and HEAD 405.\n"
	".I HOST\n"
	"is an IPv4 address, an IPv6 one in brackets\n"
	".RB ( [::1] ;\n"
	"without brackets an IPv6 address is refused, as its colons would be read as the port's), "
	"or a\n"
	"name, resolved once at start-up to the first address it has, IPv4 first (as Prometheus's\n"
	"exporters do:\n"
	".B localhost\n"
	"is 127.0.0.1); without it,\n"
	".B 127.0.0.1\n"
	"only: exposing the endpoint to the network is a choice\n"
	".RB ( 0.0.0.0 ,\n"
	"or\n"
	".B [::]\n"
	"for IPv6 and IPv4).\n"
	".I PORT\n"
	"defaults to\n"
	".BR 10140 ,\n"
	"outside the range 9100 to 9999 that Prometheus's list of default exporter ports has given "
	"out\n"
	"in full, and no well-known service's (not in\n"
	".BR /etc/services ).\n"
	"So\n"
	".I PORT\n"
	"alone\n"
	".RB ( \"\\-\\-listen 9999\" )\n"
	"is 127.0.0.1's,\n"
	".I HOST\n"
	"alone\n"
	".RB ( \"\\-\\-listen 0.0.0.0\" )\n"
	"listens on the default port, and\n"
	".B \\-\\-listen\n"
	"with no value (last, or before another option) and\n"
	".B \\-\\-listen :\n"
	"are 127.0.0.1:10140.\n"
	".BI unix: PATH\n"
	"is a Unix socket instead, made with mode 0660: only its owner (foliostat's user) and its "
	"group\n"
	"may connect, which is the group of the directory where that directory is set-group-ID\n"
	".RB ( \"install \\-d \\-m 2750 \\-g prometheus /run/foliostat\" ).\n"
	"A socket at\n"
	".I PATH\n"
	"that no process listens on (left by a foliostat that was killed) is replaced; one that a\n"
	"process listens on, or anything else at\n"
	".IR PATH ,\n"
	"is an error (status 1) and left alone.\n"
	"The socket is removed at exit where the run may still remove it (a run as\n"
	".B nobody\n"
	"under Landlock may not: the next start replaces the stale socket).\n"
	"The address is bound before anything is loaded: a port in use is an error at once (status "
	"1),\n"
	"an address that does not parse, or a name that does not resolve, a usage error (status "
	"2).\n"
	".IP\n"
	"A scrape is answered from a read of the maps made after its request arrived, so what it "
	"returns\n"
	"is never older than the scrape.\n"
	"Scrapes share reads: one that arrives within 250 ms of the last read waits for the next "
	"(250 ms\n"
	"at most), and one read and one rendering per format serve every scrape that waited for "
	"it, so\n"
	"the maps are read and the exposition made at most 4 times a second whatever the number "
	"of\n"
	"clients.\n"
	"foliostat also reads the maps by itself whenever no scrape has for 2 seconds, so the "
	"tables\n"
	"must hold the threads active within 2 seconds, or within the scrape interval if that is "
	"shorter\n"
	"(see\n"
	".BR \\-\\-max-tasks ).\n"
	"The counts stay exact counts since the start: a read shared by several scrapes loses "
	"nothing.\n"
	".IP\n"
	"The server is libmicrohttpd, run in foliostat's own loop (no thread of its own, so a "
	"scrape\n"
	"never overlaps a read).\n"
	"It holds at most 128 connections, and 32 from one client (an address; a uid on a Unix\n"
	"socket).\n"
	"A connection beyond either limit takes the place of another, never of its own: the one "
	"idle\n"
	"longest (no request in hand); failing that, the one whose answer made the least progress\n"
	"(bytes taken per second; answers begun within the last second go last, as they have not "
	"yet\n"
	"shown how fast their client reads).\n"
	"Only when every other connection waits for the next read (250 ms at most) is the "
	"newcomer\n"
	"refused.\n"
	"At most 16\n"
	".B /metrics\n"
	"answers past their first second are being sent at once, and 4 to one client: each holds "
	"the\n"
	"text of the read it was made from until its client has read it, so a client that reads "
	"slowly\n"
	"or not at all holds memory; beyond either limit, the answer that made the least progress "
	"(among\n"
	"the client's own, or among all) is closed for the new one, which is always served.\n"
	"Answers within their first second are not closed for another (they hold the texts of the "
	"last\n"
	"few reads only, 4 a second at most).\n"
	"A connection is closed after 5 seconds without progress.\n"
	"So neither idle connections nor slow readers, which any local user can open from any of\n"
	"127.0.0.0/8's addresses, keep a scraper out: a scraper reads its answer at once, and is "
	"never\n"
	"the slowest; a limit that refused the newcomer would refuse a Prometheus on the same "
	"host\n"
	"first.\n"
	"These limits, what they hold and what they closed are counted as the\n"
	".B connections\n"
	"and\n"
	".B answers\n"
	"structures (see\n"
	".BR SECURITY ).\n"
	"Not with\n"
	".IR INTERVAL ,\n"
	".BR \\-o ,\n"
	".BR \\-\\-replace ,\n"
	".BR \\-\\-check ,\n"
	".B \\-\\-\n"
	".IR COMMAND ,\n"
	"or another\n"
	".BR \\-\\-format .\n"
	"A static build (every cross build) has no HTTP server: there\n"
	".B \\-\\-listen\n"
	"fails with a message that says so.\n";

static const char man_web_config_file[] =
	"With\n"
	".BR \\-\\-listen :\n"
	"TLS and basic authentication, in the format of the Prometheus exporters' own\n"
	".B \\-\\-web.config.file\n"
	"(node_exporter's), a YAML file of which foliostat implements these keys:\n"
	".RS\n"
	".IP\n"
	".nf\n"
	"tls_server_config:\n"
	"  cert_file: /etc/foliostat/cert.pem   # PEM; relative paths are\n"
	"  key_file: /etc/foliostat/key.pem     # from FILE's directory\n"
	"basic_auth_users:\n"
	"  prometheus: $2y$10$...               # bcrypt\n"
	".fi\n"
	".RE\n"
	".IP\n"
	"With\n"
	".BR tls_server_config ,\n"
	"the endpoint is HTTPS only (GnuTLS, through libmicrohttpd); both files are read at "
	"start-up,\n"
	"before privileges are dropped, so the key may be readable by root alone.\n"
	"With\n"
	".BR basic_auth_users ,\n"
	"every request (every path) needs one of the users and its password; others are answered "
	"401\n"
	"with a\n"
	".B WWW-Authenticate\n"
	"challenge.\n"
	"Hashes are bcrypt\n"
	".RB ( $2a$ \", \" $2b$ \", \" $2y$ ;\n"
	".B htpasswd \\-nBC 10 NAME\n"
	"makes one), checked with libcrypt.\n"
	"A password, once verified, is remembered until exit (as its SHA-256) and compared with in "
	"a\n"
	"time that does not depend on what is given, without bcrypt: a scraper costs one bcrypt "
	"check\n"
	"after start-up.\n"
	"Checking others (bcrypt costs tens of milliseconds by design) takes at most a tenth of a "
	"CPU\n"
	"in all, after the first second's worth, and each client (an address; a uid on a Unix "
	"socket) a\n"
	"sixteenth of that (one check of cost 10 every 13 seconds or so), after its first check: "
	"so\n"
	"guessers on a few addresses leave the shared budget to others, and a scraper's first "
	"check is\n"
	"made at once however fast they guess (see\n"
	".BR SECURITY ).\n"
	"The budgets count a check's CPU time.\n"
	"Clients are remembered in a table of 64, the least recently seen giving its place to a "
	"new one\n"
	"(the\n"
	".B password_clients\n"
	"structure; see\n"
	".BR SECURITY ).\n"
	"A request beyond a budget is answered 429 with\n"
	".B Retry-After\n"
	"giving the whole seconds after which the client's own budget, and the shared one as it "
	"stands,\n"
	"allow a check.\n"
	"A user that does not exist costs a check too, so the answer's time does not tell which "
	"exist.\n"
	"Any other key (the exporters' client certificates, TLS versions and ciphers,\n"
	".BR http_server_config )\n"
	"is a usage error (status 2) naming its line, so that a setting believed in force is "
	"never\n"
	"silently not; so is a hash that is not bcrypt, a hash of cost above 14 (2^14 rounds, "
	"about a\n"
	"second per check on today's CPUs: a costlier one would hold the exporter that long for "
	"every\n"
	"password it does not know yet), and a file over 64 KiB.\n"
	"An empty file means plain HTTP without authentication.\n"
	"A file, certificate or key that cannot be read, or a key that is not the certificate's, "
	"is a\n"
	"failure (status 1).\n";

static const char man_max_series[] =
	"With\n"
	".B \\-\\-listen\n"
	"or\n"
	".BR \"\\-\\-format prometheus\" :\n"
	"at most\n"
	".I N\n"
	"groups (cgroups, processes or names) have series of their own, from 1 to 1000000 "
	"(default\n"
	"1000).\n"
	"When a new group needs a series and none is free, it takes the place of the group idle\n"
	"longest, if that group's last counts have been exposed since it last had any (scraped, "
	"or\n"
	"written to the file); that group's series ends, and Prometheus keeps what it stored of "
	"it.\n"
	"Otherwise the new group's events are counted in the series labelled\n"
	".BR group=\\(dqother\\(dq .\n"
	"Nothing counted is dropped: every event of a thread is in exactly one series.\n";

static const char man_series_grace[] =
	"With\n"
	".B \\-\\-listen\n"
	"or\n"
	".BR \"\\-\\-format prometheus\" :\n"
	"a removed cgroup or an exited process stops being exported\n"
	".I SECS\n"
	"seconds after its last event (default 300), once its last counts have been exposed; a "
	"name\n"
	".RB ( \"\\-\\-by comm\" )\n"
	"after\n"
	".I SECS\n"
	"without events.\n"
	"A cgroup made again at the same path keeps its series (a restarted service's).\n";

static const char man_pid[] =
	"Only report the process whose thread-group id (the PID shown by\n"
	".BR ps (1))\n"
	"is\n"
	".IR PID .\n"
	"Repeatable, up to 64 times; a process matching any of them is reported.\n"
	"A\n"
	".I PID\n"
	"that does not exist when\n"
	".B foliostat\n"
	"starts is a usage error (exit status 2).\n"
	"It is the process that has\n"
	".I PID\n"
	"then: should it exit and a new process get the same pid, the new one is not reported (it "
	"is\n"
	"told apart by its start time, to the clock tick of\n"
	".BR /proc/\\fIPID\\fB/stat ;\n"
	"where\n"
	".B /proc\n"
	"hides other users' processes, any process with the pid is reported, each in a row of its "
	"own).\n";

static const char man_comm[] =
	"Only report processes whose name is exactly\n"
	".I NAME\n"
	"(1 to 15 bytes: the kernel keeps 15 bytes of a name).\n"
	"With\n"
	".BR \\-p ,\n"
	"a process must match both.\n";

static const char man_cgroup[] =
	"Only tasks in the cgroup\n"
	".I PATH\n"
	"of the cgroup v2 hierarchy, or in a cgroup below it, get process rows; repeatable (up to "
	"8: a\n"
	"task in any of them).\n"
	".I PATH\n"
	"is a directory of the hierarchy, wherever the host mounts it (found in\n"
	".BR /proc/self/mountinfo ;\n"
	"hybrid hosts mount it elsewhere than\n"
	".BR /sys/fs/cgroup ),\n"
	"or a path as\n"
	".B /proc/\\fIPID\\fB/cgroup\n"
	"writes it, relative to that mount\n"
	".RB ( /system.slice/nginx.service ).\n"
	"The selection is made in the kernel, when a thread's table entry would be made: other "
	"tasks get\n"
	"no entry, and their events are counted in the host-wide\n"
	".B system\n"
	"figures and its\n"
	".B unselected\n"
	"group only.\n"
	"A task is judged by the cgroup it is in when its entry would be made (or, without one, at "
	"its\n"
	"first event of each turn on a CPU).\n"
	"A task that moves to another cgroup is judged again: its entry, if it has one, is retired "
	"at the\n"
	"move (the\n"
	".B cgroup:cgroup_attach_task\n"
	"probe; every thread of a process moved whole through\n"
	".BR cgroup.procs ),\n"
	"and a task without one is judged again at its next event.\n"
	"A path that is not a cgroup2 directory (missing, a file, a cgroup v1 hierarchy) is a "
	"usage error;\n"
	"a host with no cgroup2 hierarchy mounted, a runtime error.\n"
	"With\n"
	".B \\-\\-\n"
	".IR COMMAND ,\n"
	"a task must be both followed and in a selected cgroup.\n";

static const char man_top[] =
	"Report at most\n"
	".I N\n"
	"processes per record, the first by\n"
	".B \\-\\-sort\n"
	"(default 20; 0 reports all).\n";

static const char man_full[] =
	"With an\n"
	".I INTERVAL\n"
	"in table mode, print each record as the whole table a one-shot summary is, not as a line "
	"(see\n"
	".BR Table ).\n";

static const char man_sort[] =
	"What ranks the rows of tables and JSON records (the first\n"
	".B \\-\\-top\n"
	"are shown):\n"
	".B pages\n"
	"allocated (the default: which processes take memory, and of which folio sizes, is the "
	"first\n"
	"question),\n"
	".B large\n"
	"(movable pages allocated in folios of order 1 and up),\n"
	".B thp\n"
	"(THP faults that got a huge page),\n"
	".B fallback\n"
	"(large allocations that got no folio),\n"
	".BR faults ,\n"
	".B tlb\n"
	"(flushes),\n"
	".B lru\n"
	"(pages put on LRU lists) or\n"
	".B events\n"
	"(everything counted: folios allocated and added to the page cache, faults, pages "
	"migrated, TLB\n"
	"flushes, stalls and collapse outcomes).\n"
	"Ties go to the row with more events, then by PID (then start time).\n"
	"Not with\n"
	".B \\-\\-listen\n"
	"or\n"
	".BR \"\\-\\-format prometheus\" ,\n"
	"which export every group's counts whatever their rank.\n";

static const char man_by[] =
	"What a row of a record is: a process (the default); a cgroup of the v2 hierarchy, with "
	"the\n"
	"systemd unit, container and Kubernetes pod its path names (see\n"
	".BR Cgroups );\n"
	"or a process name.\n"
	"A cgroup's row sums the counts of every thread while it was in that cgroup (each thread "
	"entry\n"
	"records the cgroup it was made in, and a thread that moves gets a new entry), so a "
	"process that\n"
	"moves is charged where it was, thread by thread (a process moved whole through\n"
	".B cgroup.procs\n"
	"and a thread moved alone through\n"
	".B cgroup.threads\n"
	"alike); its collapse and stall figures go to its leader's cgroup (a process's threads may "
	"be in\n"
	"several threaded cgroups).\n"
	".B \\-p\n"
	"and\n"
	".B \\-n\n"
	"select processes before their counts are summed into rows; rows are ranked and cut by\n"
	".B \\-\\-top\n"
	"as processes are, and a cgroup removed during the run is reported in the windows it was "
	"active\n"
	"in and then dropped like an exited process.\n"
	"In JSON the rows are in\n"
	".BR processes ,\n"
	".B cgroups\n"
	"or\n"
	".BR comms ,\n"
	"and\n"
	".B system.processes\n"
	"counts the rows of that kind with activity.\n";

static const char man_output[] =
	"Append each record to\n"
	".I FILE\n"
	"instead of writing it to standard output: a log of every record, as\n"
	".BR perf (1)\n"
	"and\n"
	".BR strace (1)\n"
	"write theirs\n"
	".RB ( \"foliostat \\-j 10 \\-o log.ndjson\"\n"
	"keeps one JSON record per line).\n"
	".I FILE\n"
	"is created if it does not exist, mode 0600 (less the umask's bits) unless\n"
	".B \\-\\-output-mode\n"
	"says otherwise: records name other users' processes and cgroups and, with\n"
	".BR \\-\\-files ,\n"
	"paths in directories they may keep to themselves; an existing\n"
	".I FILE\n"
	"keeps its mode.\n"
	"It is opened when\n"
	".B foliostat\n"
	"starts, before anything is loaded and before privileges are dropped, as a shell's\n"
	".B >>\n"
	"would: if it cannot be, foliostat says so and exits with status 1.\n"
	"A symlink at\n"
	".I FILE\n"
	"is refused, never followed.\n"
	"Each record is appended in one write once it is whole; should the write stop part-way (a "
	"full\n"
	"file system), what it wrote is cut off again and foliostat exits with status 1, so\n"
	".I FILE\n"
	"ends with a whole record (on a regular file; a pipe or a device cannot take bytes back).\n"
	"Not with\n"
	".BR \"\\-\\-format prometheus\" :\n"
	"see\n"
	".BR \\-\\-replace .\n";

static const char man_replace[] =
	"Write each record to\n"
	".I FILE\n"
	"instead of standard output, replacing it whole: in streaming mode\n"
	".I FILE\n"
	"holds the latest record, as a dashboard or a collector that reads files expects "
	"(node_exporter's\n"
	"textfile collector, with\n"
	".BR \"\\-\\-format prometheus\" ).\n"
	"Each record is written to a new file beside\n"
	".I FILE\n"
	"(a hidden name unique to the run, created exclusively) and renamed over it, so a\n"
	"reader sees the previous record or the new one, never part of one.\n"
	".I FILE\n"
	"is mode 0644 (less the umask's bits) unless\n"
	".B \\-\\-output-mode\n"
	"says otherwise: node_exporter's textfile collector reads it as a user of its own.\n"
	"A symlink at\n"
	".I FILE\n"
	"is replaced by the file, never written through.\n"
	".IR FILE 's\n"
	"directory is opened before anything is loaded: if it cannot be, foliostat says so and "
	"exits\n"
	"with status 1.\n"
	"Records are written after foliostat has dropped its capabilities, as the user root "
	"without\n"
	"them (a run with\n"
	".B \\-\\-replace\n"
	"keeps uid 0, see\n"
	".BR NOTES ),\n"
	"and where the kernel has Landlock, nowhere but beneath\n"
	".IR FILE 's\n"
	"directory: a directory only another user may write to is refused at start-up, with status "
	"1.\n"
	"Not with\n"
	".BR \\-o .\n";

static const char man_output_mode[] =
	"The mode of the file\n"
	".B \\-o\n"
	"creates or\n"
	".B \\-\\-replace\n"
	"writes, in octal, from 0 to 0777 (permission bits only: as 0640 for a group that reads "
	"the\n"
	"records), exactly: the umask takes no bit away from it.\n"
	"Without it,\n"
	".BR \\-o 's\n"
	"file is 0600 and\n"
	".BR \\-\\-replace 's\n"
	"0644, less the umask's bits.\n"
	"An existing\n"
	".BR \\-o\n"
	"file keeps its mode.\n"
	"Only with\n"
	".B \\-o\n"
	"or\n"
	".BR \\-\\-replace .\n";

static const char man_max_tasks[] =
	"Capacity of the in-kernel thread table, from 64 to 4194304 (default 32768); the process "
	"table\n"
	"(processes with huge-page collapse outcomes or stalls) holds a thirty-second of it, and "
	"at least\n"
	"64.\n"
	"A thread takes an entry at its first counted event; once its counts have been reported, "
	"the\n"
	"entry is freed if the thread has exited or had no event in the whole read, and a thread\n"
	"that comes back takes a fresh one.\n"
	"So the table must hold the threads with activity within one read (one second in one-shot\n"
	"mode, one\n"
	".I INTERVAL\n"
	"in streaming mode, or 10 seconds if that is shorter; with\n"
	".BR \\-\\-listen ,\n"
	"the time between scrapes, 2 seconds at most).\n"
	"Events of threads that find the table full are not lost: they are counted in the "
	"system's\n"
	".B untracked\n"
	"group.\n"
	"The tables are arrays that foliostat maps and reads in place: their kernel memory is "
	"taken at\n"
	"start-up, 640 bytes per thread entry and about 3.1 KiB per process entry, and on a host "
	"whose\n"
	"allocations are counted per node 512 bytes more per thread entry (their side table): "
	"about\n"
	"26 MiB at the default capacity, 42 MiB with nodes counted, which\n"
	".B bpftool map show\n"
	"lists.\n"
	".IP\n"
	"It also bounds what a record made of several reads (a one-shot run, or an\n"
	".I INTERVAL\n"
	"over 10 seconds) keeps in memory: the figures of at most\n"
	".I N\n"
	"processes (about 800 bytes each).\n"
	"When a run has seen more, the least active are dropped from the per-process figures, down "
	"to\n"
	"three quarters of\n"
	".IR N ;\n"
	"their events stay in the system figures, and\n"
	".B processes\n"
	"still counts them.\n";

static const char man_files[] =
	"Also count page-cache additions per file: each record then lists the files with the most\n"
	"pages added (at most\n"
	".BR \\-\\-top ,\n"
	"0 for all), each with its path, device, inode and folios by order, and every file system "
	"with\n"
	"additions (its mount point, type, pages and folios by order: which mounts get large "
	"folios at\n"
	"all), and what each file and file system could hold: the largest folio order its mapping\n"
	"allows (column\n"
	".B CAN\n"
	"beside\n"
	".BR MAX ,\n"
	"the largest it got; JSON's\n"
	".B folio_orders\n"
	"and\n"
	".BR max_folio_order_allowed ),\n"
	"so that a file system that cannot hold large folios is told apart from one whose large "
	"folios\n"
	"fell back;\n"
	".B files\n"
	"and\n"
	".B filesystems\n"
	"in JSON, a\n"
	".B PAGE-CACHE FILES\n"
	"section in the table.\n"
	"Off by default: it costs a hash-table update per page-cache addition, beside the "
	"per-process\n"
	"count, and its BPF program\n"
	".RB ( filemap:mm_filemap_add_to_page_cache/files\n"
	"in\n"
	".BR PROBES )\n"
	"is not even loaded without it.\n"
	"It counts every addition on the host, whatever\n"
	".BR \\-p ,\n"
	".BR \\-c ,\n"
	".B \\-n\n"
	"or\n"
	".B \\-\\- COMMAND\n"
	"select.\n"
	"Files of tmpfs and other shmem (and hugetlbfs) are not counted: the kernel adds their "
	"folios\n"
	"to the page cache without that tracepoint\n"
	".RB ( \\-\\-resident\n"
	"shows what they hold).\n"
	"A file is named when its entry is made, from its inode's first dentry and that dentry's "
	"parents\n"
	"(up to 8 components of up to 63 bytes each), joined to the mount point of its file system "
	"as\n"
	".B /proc/self/mountinfo\n"
	"shows it to foliostat.\n"
	"Not with\n"
	".B \\-\\-listen\n"
	"or\n"
	".BR \"\\-\\-format prometheus\" :\n"
	"the exposition has no per-file series.\n";

static const char man_resident[] =
	"Also read what the memory of every selected process\n"
	".RB ( \\-p ,\n"
	".BR \\-n ,\n"
	".BR \\-c ;\n"
	"all without them) holds: at the end of a one-shot run, or, with an\n"
	".I INTERVAL\n"
	"or\n"
	".BR \\-\\-listen ,\n"
	"all the time (below). The pages it maps, by the order of the folio each\n"
	"belongs to, anonymous, file (page cache) or shmem (tmpfs, shared anonymous memory, "
	"memfd), and\n"
	"how its large folios are mapped: by one PMD entry, whole by page-table entries at an "
	"address of\n"
	"their own alignment or at another, or only in part.\n"
	"A\n"
	".B RESIDENT\n"
	"section in the table (the processes with the most pages in large folios first, at most\n"
	".BR \\-\\-top ),\n"
	".B resident\n"
	"in JSON (foliostat-json(5)).\n"
	"It reads\n"
	".BI /proc/ PID /smaps\n"
	"(the mappings, and each one's Rss; where PAGEMAP_SCAN skips holes itself,\n"
	".BI /proc/ PID /maps ),\n"
	".BI /proc/ PID /pagemap\n"
	"(the page frame each page maps),\n"
	".B /proc/kpageflags\n"
	"(which frames begin or continue a large folio, and whether it is anonymous or "
	"swap-backed) and\n"
	".BI /proc/ PID /smaps_rollup\n"
	"(how much is mapped by PMDs); those need root: a child process,\n"
	".BR foliostat-proc ,\n"
	"forked before foliostat drops its privileges, keeps\n"
	".BR CAP_SYS_ADMIN ,\n"
	".B CAP_SYS_PTRACE\n"
	"and\n"
	".B CAP_DAC_READ_SEARCH\n"
	"(of those foliostat has), makes no system call but\n"
	".BR openat (2),\n"
	".BR read (2),\n"
	".BR stat (2)\n"
	"and those it answers with, and opens only those files, only of a process the options "
	"select\n"
	"(it is given the selection when it is forked, and checks the process against it: "
	"SECURITY),\n"
	"and only of the process foliostat selected: the process's start time\n"
	".RI ( /proc/ PID /stat ,\n"
	"field 22) is compared with the one foliostat selected before and after the open, so that "
	"a\n"
	"pid that ends and is given to another process meanwhile is never read under the first "
	"one's\n"
	"name (it counts as gone). foliostat reads the files through the descriptors it passes "
	"back.\n"
	"On Linux 6.7 and later, pagemap's PAGEMAP_SCAN ioctl first says which parts of each "
	"mapping\n"
	"have pages present, and which a PMD maps, so that the holes of a sparse mapping (a "
	"runtime's\n"
	"reserved heap, say) cost nothing and\n"
	".B smaps_rollup\n"
	"is not read; before 6.7, pagemap is read entry by entry, and\n"
	".B smaps_rollup\n"
	"only for a process with PMD-size folios (records say which:\n"
	".BR resident.method ).\n"
	"On every kernel a mapping whose Rss is 0 is not read, and a mapping is read no further "
	"than\n"
	"its last resident page as its Rss counts them: a reservation of 64 TiB whose pages are at "
	"its\n"
	"start takes milliseconds before 6.7 too.\n"
	"No process takes more than a limit of pagemap entries a pass: twice the host's pages (at "
	"least\n"
	"262,144), reported as the bound\n"
	".BR resident_pages .\n"
	"Only a mapping whose pages are far apart can reach it, before Linux 6.7 (pages at both "
	"ends\n"
	"of a reservation of terabytes: the holes between cannot be ruled out without "
	"PAGEMAP_SCAN).\n"
	"Such a reading is cut short: the process's figures are what was read before the limit (a\n"
	"mapping that alone could take every entry left is read after the others: the other "
	"mappings\n"
	"are whole), a lower bound, and are marked as such: a\n"
	".B +\n"
	"after the row's RSS_MiB and \"N read in part (+)\" in the table's heading,\n"
	".B cut_short\n"
	"in its JSON row and\n"
	".B resident.processes_cut_short\n"
	"in the record,\n"
	".B foliostat_resident_cut_short_processes\n"
	"in the exposition; the bound's evictions count such readings.\n"
	"The reading costs about a system call per 512 pages mapped and one per scattered small "
	"folio\n"
	"(docs/benchmarks.md); in a one-shot run it is not counted in the run's figures (it "
	"happens\n"
	"after).\n"
	"A process that ends before it is read is counted as gone, one that cannot be read as "
	"failed\n"
	".RB ( \\-v\n"
	"says which and why: a process outside foliostat's Landlock domain, for one).\n"
	"Kernel threads (which map nothing), foliostat and its openers are left out.\n"
	"Without\n"
	".B CAP_SYS_ADMIN\n"
	"pagemap shows no page frames and nothing can be read: the run (one-shot, streaming or\n"
	".BR \\-\\-listen )\n"
	"ends with status 1 and says so.\n"
	".IP\n"
	"While records stream\n"
	".RI ( INTERVAL ,\n"
	"in JSON or with\n"
	".BR \\-\\-full :\n"
	"a line has no room for it) and with\n"
	".BR \\-\\-listen ,\n"
	"a thread of foliostat's reads the selected processes one after another, pass after pass,\n"
	"within a CPU budget\n"
	".RB ( \\-\\-resident-budget ,\n"
	"2% of one CPU by default: its own CPU time, user and system, against the time since the "
	"pass\n"
	"began; it sleeps before each batch of 512 pages whenever it is ahead), and keeps each "
	"process's\n"
	"last reading; a record or a scrape shows the readings as they are then. A pass starts at "
	"most\n"
	"once per\n"
	".I INTERVAL\n"
	"(with\n"
	".BR \\-\\-listen ,\n"
	"once every 10 s) and takes as long as the budget makes it: at 2%, a host with 1,000 "
	"processes\n"
	"and 20 GiB resident in small pages (about 3 s of CPU a pass, see docs/benchmarks.md) is "
	"read\n"
	"in about two and a half minutes. So each figure is as old as its process's last reading, "
	"at\n"
	"most about one pass and the time between two; records say how old\n"
	".RB ( age_seconds ,\n"
	".BR oldest_seconds ,\n"
	"and the pass's time and CPU time), the exposition too\n"
	".RB ( foliostat_resident_oldest_seconds ,\n"
	"foliostat-metrics(7)). Until the first pass ends, the figures are of the processes read "
	"so\n"
	"far. The readings kept (about 1 KiB each, and as much again while a record or scrape "
	"takes\n"
	"them) are bounded by\n"
	".BR \\-\\-max-tasks ;\n"
	"processes beyond it are counted as not read.\n"
	"Not with a\n"
	".I COMMAND\n"
	"(its processes have ended when the run does).\n";

static const char man_resident_budget[] =
	"With\n"
	".B \\-\\-resident\n"
	"and an\n"
	".I INTERVAL\n"
	"or\n"
	".BR \\-\\-listen :\n"
	"the share of one CPU its reading may take, over 0 and at most 100 (default 2).\n";

static const char man_max_files[] =
	"With\n"
	".BR \\-\\-files ,\n"
	"the files a read and a record keep, from 1 to 1048576 (default 4096).\n"
	"Additions to files beyond it are not lost: they are counted as their file system's\n"
	".BR untracked_pages ,\n"
	"so each file system's figures are exact whatever the bound.\n"
	"The in-kernel table is two hash maps of\n"
	".I N\n"
	"entries of about 730 bytes (one is written while the other is read), about 6 MiB of "
	"kernel\n"
	"memory at the default, taken at start-up only with\n"
	".BR \\-\\-files .\n";

static const char man_check[] =
	"Report what this host offers foliostat and exit: the kernel, whether its BTF is present, "
	"the\n"
	"privileges held and those a run keeps after start-up (uid, capabilities, Landlock, "
	"seccomp), the\n"
	"THP and multi-generational LRU modes, how events are attributed, the kernel stack size "
	"and\n"
	"how foliostat waits for running BPF programs, for each probe whether it attaches (it is\n"
	"loaded and attached as a run\n"
	"would, then detached) or why not, and each record figure that will be null here (see\n"
	".BR foliostat\\-json (5)),\n"
	"by its path, with the probes it needs.\n"
	"Exit status 0 when the required probes attach, 1 otherwise.\n"
	"With\n"
	".BR \\-j ,\n"
	"one JSON object:\n"
	".BR schema ,\n"
	"and\n"
	".B check\n"
	"holding\n"
	".BR kernel ,\n"
	".B btf\n"
	"(boolean),\n"
	".B privileges\n"
	".RB ( euid ,\n"
	".BR cap_bpf ,\n"
	".BR cap_perfmon :\n"
	"those held now; and\n"
	".BR after_start ,\n"
	"what a run keeps once its probes are attached (see\n"
	".BR NOTES ):\n"
	".B uid\n"
	"(a run without\n"
	".B \\-\\-replace\n"
	"or\n"
	".BR \"\\-\\- COMMAND\" ,\n"
	"which keep 0),\n"
	".B cap_bpf\n"
	"(boolean),\n"
	".B no_new_privs\n"
	"(true),\n"
	".B landlock_abi\n"
	"(the Landlock ABI applied, or null where the kernel has none),\n"
	".B seccomp\n"
	"(boolean: the system-call filter is installed) and\n"
	".B uid_0_without_landlock\n"
	"(null, or, where the kernel has no Landlock and\n"
	".B foliostat\n"
	"runs as root, the runs that keep uid 0 unconfined:\n"
	".B \"runs with \\-\\-replace or \\-\\- COMMAND\"\n"
	"or\n"
	".B \"every run (\\fIwhy\\fB)\"\n"
	"where a plain run cannot change its uid; see\n"
	".BR SECURITY )),\n"
	".B thp\n"
	".RB ( enabled ,\n"
	".B defrag\n"
	"modes),\n"
	".B mglru\n"
	"(boolean),\n"
	".B attribution\n"
	"(how events find the thread to charge, see\n"
	".BR NOTES :\n"
	".B method\n"
	".RB ( records\n"
	"or\n"
	".BR lookups ),\n"
	".B why\n"
	"(why lookups, or null) and\n"
	".B preemptible\n"
	"(boolean: the kernel may preempt tracepoint programs)),\n"
	".B kernel_stack\n"
	".RB ( bytes :\n"
	"the kernel's stack size, which the interrupt-context test needs;\n"
	".BR measured :\n"
	"true when foliostat measured it at start-up, false when it assumed it),\n"
	".B program_wait\n"
	"(how a read waits for BPF programs still running before it empties what they write, an "
	"RCU\n"
	"grace period:\n"
	".B method\n"
	".RB ( membarrier ,\n"
	"or\n"
	".B \"map-in-map update\"\n"
	"where membarrier is refused, as on a host with nohz_full CPUs or under a seccomp filter "
	"that\n"
	"refuses it) and\n"
	".B why\n"
	"(why not membarrier, or null)),\n"
	".B memory_nodes\n"
	"(the NUMA nodes with memory and how a record's\n"
	".B alloc_by_node\n"
	"finds each allocation's node:\n"
	".B nodes\n"
	"(their numbers),\n"
	".B method\n"
	".RB ( \"one node\" :\n"
	"every allocation is on it;\n"
	".BR \"page flags\" :\n"
	"BPF reads the node the kernel keeps in each allocated page's flags, checked at start\\-up "
	"on a\n"
	"page foliostat places on each node; null where neither works, and the figures by node are "
	"null)\n"
	"and\n"
	".B why\n"
	"(why null, or null)),\n"
	".B probes\n"
	"(as in a record),\n"
	".B null_figures\n"
	"(each figure of a record's objects that will be null here, by its path below the object\n"
	".RB ( thp.fault_alloc ),\n"
	"mapped to what it needs, for example\n"
	".BR \"memcg:count_memcg_events attached\" ;\n"
	"the members of a null object are not listed with it; an empty object when every figure "
	"is\n"
	"measured, null when the probes could not be loaded),\n"
	".B error\n"
	"(why the programs could not be loaded, when they could not) and\n"
	".B usable\n"
	"(boolean).\n"
	"Takes no\n"
	".IR INTERVAL ,\n"
	".BR \\-\\-duration ,\n"
	".B \\-\\-output\n"
	"or\n"
	".BR \\-\\-replace .\n";

static const char man_self[] =
	"Add foliostat's own cost to each record\n"
	".RB ( self\n"
	"in JSON, a\n"
	".B SELF\n"
	"section in the table): for each probe, the events its program ran for and the average\n"
	"nanoseconds per event, from the kernel's BPF run-time statistics, and the loader's CPU "
	"time\n"
	"and memory.\n"
	"The statistics are on before the programs are loaded, so the first record counts every "
	"run\n"
	"since attach, as the other figures do.\n"
	"The statistics are switched on (with the\n"
	".B BPF_ENABLE_STATS\n"
	"command, as\n"
	".B kernel.bpf_stats_enabled\n"
	"does) only while foliostat runs, and cost something themselves: two clock reads around "
	"every\n"
	"run of every BPF program on the host, tens of nanoseconds per event, so the figures "
	"overstate\n"
	"foliostat's cost without the option a little and add to every other BPF program's cost "
	"while\n"
	"it runs.\n";

static const char man_verbose[] =
	"Show libbpf's own warnings and informational messages on standard error.\n";

static const char man_help[] =
	"Show the usage summary and exit with status 0.\n";

static const char man_version[] =
	"Show the version and exit with status 0.\n";


const char *const option_group_titles[NR_OPTION_GROUPS] = {
    [OPTIONS_WATCHED] = "What to watch",
    [OPTIONS_OUTPUT] = "Output",
    [OPTIONS_EXPORTER] = "Exporter",
    [OPTIONS_VIEWS] = "Extra views",
    [OPTIONS_OTHER] = "Other",
};

/*
 * In the order of --help within each group. Rows whose names begin alike keep the order they
 * have always had (--max-series, --max-tasks, --max-files): getopt_long's table is in the rows'
 * order, and "did you mean" lists the names a prefix matches in that order.
 */
const struct option_row option_rows[] = {
    /* What to watch */
    {.name = "pid", .id = 'p', .group = OPTIONS_WATCHED, .value = VALUE_PID, .arg = "PID",
     .repeatable = true,
     .help = "only this process (thread-group id; the one with that pid at start, not a later "
	     "one that reuses it); repeatable",
     .man = man_pid},
    /* As in libbpf-tools: -c a cgroup, -n a command's name, -r the rows shown (filetop). */
    {.name = "cgroup", .id = 'c', .group = OPTIONS_WATCHED, .value = VALUE_CGROUP, .arg = "PATH",
     .repeatable = true,
     .help = "only tasks in cgroup PATH or below it, selected in the kernel (a cgroup v2 "
	     "directory wherever the host mounts it, or its path as /proc/PID/cgroup writes "
	     "it); repeatable",
     .man = man_cgroup},
    {.name = "comm", .alias = "name", .id = 'n', .group = OPTIONS_WATCHED, .value = VALUE_COMM,
     .arg = "NAME", .help = "only processes named exactly NAME", .man = man_comm},
    {.name = "by", .id = OPT_BY, .group = OPTIONS_WATCHED, .value = VALUE_CHOICE, .arg = "KIND",
     .choices = fs_row_kind_names,
     .help = "rows per process (the default; cgroup when exporting), per cgroup (with the "
	     "systemd unit, container and Kubernetes pod its path shows; each thread's counts "
	     "stay in the cgroup they happened in), or per comm (name)",
     .man_arg = "\\fBprocess\\fR|\\fBcgroup\\fR|\\fBcomm\\fR", .man = man_by},

    /* Output */
    {.name = "duration", .id = 'd', .group = OPTIONS_OUTPUT, .value = VALUE_NUMBER,
     .arg = "SECS", .help = "one-shot: stop after SECS seconds", .man = man_duration},
    {.name = "top", .alias = "rows", .id = 'r', .group = OPTIONS_OUTPUT, .value = VALUE_NUMBER,
     .arg = "N", .help = "at most N rows per record, the first by --sort (default %g, 0: all)",
     .help_default = FS_DEFAULT_TOP, .man = man_top},
    {.name = "sort", .id = OPT_SORT, .group = OPTIONS_OUTPUT, .value = VALUE_CHOICE,
     .arg = "KEY", .choices = fs_sort_names,
     .help = "rank the rows by KEY: pages allocated (the default), large (pages in large "
	     "folios), thp, fallback, faults, tlb, lru or events (all counted)",
     .man = man_sort},
    {.name = "full", .id = OPT_FULL, .group = OPTIONS_OUTPUT,
     .help = "with INTERVAL in table mode: whole tables each time, not a line (TIME, the "
	     "system's figures, the first row)",
     .man = man_full},
    {.name = "json", .id = 'j', .group = OPTIONS_OUTPUT,
     .help = "one JSON object per record (NDJSON) instead of tables", .man = man_json},
    {.name = "format", .id = OPT_FORMAT, .group = OPTIONS_OUTPUT, .value = VALUE_CHOICE,
     .arg = "FORMAT", .choices = fs_format_names,
     .help = "table (the default), json (as -j), or prometheus: the exposition of --listen, "
	     "counts since the start (for node_exporter's textfile collector, with --replace)",
     .man = man_format},
    {.name = "output", .id = 'o', .group = OPTIONS_OUTPUT, .value = VALUE_FILE, .arg = "FILE",
     .help = "append each record to FILE instead (a log; whole records only; a symlink at FILE "
	     "is refused; a new FILE is 0600, an existing one keeps its mode)",
     .man = man_output},
    {.name = "replace", .id = OPT_REPLACE, .group = OPTIONS_OUTPUT, .value = VALUE_FILE,
     .arg = "FILE",
     .help = "write each record to FILE instead, replacing it whole (a reader sees the last "
	     "record, never part of one; a symlink at FILE is replaced; 0644)",
     .man = man_replace},
    {.name = "output-mode", .id = OPT_OUTPUT_MODE, .group = OPTIONS_OUTPUT, .value = VALUE_MODE,
     .arg = "MODE",
     .help = "the mode (octal, as 0640) of the file -o creates or --replace writes, exactly, "
	     "whatever the umask",
     .man = man_output_mode},

    /* Exporter */
    {.name = "listen", .id = OPT_LISTEN, .group = OPTIONS_EXPORTER, .value = VALUE_ADDRESS,
     .arg = "[HOST][:PORT]",
     .help = "serve Prometheus metrics at /metrics over HTTP on HOST (default 127.0.0.1; "
	     "0.0.0.0, or [::] for IPv6 too, is every address; a name is resolved once) and "
	     "PORT (default %g; a PORT alone is 127.0.0.1's; no value: both defaults), until "
	     "SIGINT/SIGTERM; or unix:PATH, a Unix socket of mode 0660 (its group: the "
	     "directory's if set-group-ID)",
     .help_default = FS_DEFAULT_LISTEN_PORT,
     .man_arg = "[\\fIHOST\\fR][\\fB:\\fIPORT\\fR] | \\fBunix:\\fIPATH\\fR", .man = man_listen},
    /* As node_exporter spells it: the exporters' own access control. */
    {.name = "web.config.file", .id = OPT_WEB_CONFIG, .group = OPTIONS_EXPORTER,
     .value = VALUE_FILE, .arg = "FILE",
     .help = "with --listen: TLS and basic-auth users (bcrypt hashes), in node_exporter's "
	     "format (tls_server_config: cert_file, key_file; basic_auth_users: NAME: HASH)",
     .man = man_web_config_file},
    {.name = "max-series", .id = OPT_MAX_SERIES, .group = OPTIONS_EXPORTER,
     .value = VALUE_NUMBER, .arg = "N",
     .help = "groups (cgroups, processes, names) exported at most; the others are counted in "
	     "a group=\"other\" series (default %g)",
     .help_default = FS_DEFAULT_MAX_SERIES, .man = man_max_series},
    {.name = "series-grace", .id = OPT_SERIES_GRACE, .group = OPTIONS_EXPORTER,
     .value = VALUE_NUMBER, .arg = "SECS",
     .help = "how long a removed cgroup or exited process stays exported after its last event "
	     "(default %g)",
     .help_default = FS_DEFAULT_SERIES_GRACE_S, .man = man_series_grace},

    /* What to watch, after --max-series (above). */
    {.name = "max-tasks", .alias = "max-threads", .id = OPT_MAX_TASKS, .group = OPTIONS_WATCHED, .value = VALUE_NUMBER,
     .arg = "N",
     .help = "capacity of the in-kernel thread and process tables, and the processes a record "
	     "of several reads keeps (one-shot, or INTERVAL over 10 s); default %g, about 26 MiB "
	     "of kernel memory (42 MiB on a host of several NUMA nodes)",
     .help_default = FS_DEFAULT_MAX_TASKS, .man = man_max_tasks},

    /* Extra views */
    {.name = "files", .id = OPT_FILES, .group = OPTIONS_VIEWS,
     .help = "also count page-cache additions per file (the top files, with paths) and per "
	     "file system; costs a hash update per addition",
     .man = man_files},
    {.name = "max-files", .id = OPT_MAX_FILES, .group = OPTIONS_VIEWS, .value = VALUE_NUMBER,
     .arg = "N",
     .help = "files a read and a record keep at most with --files; the others' additions are "
	     "counted as their file system's untracked pages (default %g)",
     .help_default = FS_DEFAULT_MAX_FILES, .man = man_max_files},
    {.name = "resident", .id = OPT_RESIDENT, .group = OPTIONS_VIEWS,
     .help = "also read what each selected process's memory holds: pages by folio order "
	     "(anonymous, file, shmem) and how its large folios are mapped (PMD, PTEs, "
	     "partially), from pagemap and kpageflags (root); at the end of a one-shot run, or, "
	     "with INTERVAL or --listen, process after process all the time",
     .man = man_resident},
    {.name = "resident-budget", .id = OPT_RESIDENT_BUDGET, .group = OPTIONS_VIEWS,
     .value = VALUE_NUMBER, .arg = "PERCENT",
     .help = "the share of one CPU --resident's reads may take while streaming or exporting "
	     "(default %g; each figure is as old as its process's last reading)",
     .help_default = FS_DEFAULT_RESIDENT_BUDGET, .man = man_resident_budget},
    {.name = "self", .id = OPT_SELF, .group = OPTIONS_VIEWS,
     .help = "add foliostat's own cost to each record (BPF run-time statistics, which it turns "
	     "on while it runs; the loader's CPU time and memory)",
     .man = man_self},

    /* Other */
    {.name = "check", .id = OPT_CHECK, .group = OPTIONS_OTHER,
     .help = "report, probe by probe, what this kernel offers, and the record figures that "
	     "will be null here; then exit (0: the required probes attach; 1: they do not)",
     .man = man_check},
    {.name = "verbose", .id = 'v', .group = OPTIONS_OTHER,
     .help = "show libbpf's own messages", .man = man_verbose},
    {.name = "help", .id = 'h', .group = OPTIONS_OTHER, .help = "show the help and exit",
     .man = man_help},
    {.name = "version", .id = 'V', .group = OPTIONS_OTHER,
     .help = "show the version and exit", .man = man_version},
#ifdef FOLIOSTAT_TEST_HOOKS /* make TEST_HOOKS=1 only: see test_hooks.h */
    {.name = "test-escape", .id = OPT_TEST_ESCAPE, .group = OPTIONS_OTHER, .value = VALUE_FILE,
     .arg = "FILE", .hidden = true},
#endif
};

const int nr_option_rows = sizeof(option_rows) / sizeof(option_rows[0]);

const struct option_row *option_row_of(int id)
{
	for (int i = 0; i < nr_option_rows; i++)
		if (option_rows[i].id == id)
			return &option_rows[i];
	return NULL;
}

void option_help_text(const struct option_row *row, char *text, size_t len)
{
	/* The format is a row's own, with one %g at most (the unit tests check each row). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(text, len, row->help ? row->help : "", row->help_default);
#pragma GCC diagnostic pop
}
