/* progs.c — `kiln prog list`: the kernel's loaded programs (id, type, name, tag, instruction
 * counts, maps, load time), as aligned text or JSON lines. */
#include "cli.h"
#include <errno.h>
#include <string.h>
#include <time.h>

static const char prog_help[] =
	"usage: kiln prog list [--json]\n"
	"\n"
	"List the programs loaded in the kernel: id, type, name, tag, translated instructions,\n"
	"the verifier's processed count, the ids of the maps they use and when they were loaded.\n";

static void print_info(const struct kiln_prog_info *i, bool json)
{
	char when[32] = "-";
	time_t t = (time_t)i->load_time_unix;
	struct tm tm;
	if (localtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	uint32_t nmaps = i->nr_map_ids < KILN_PROG_MAX_MAP_IDS ? i->nr_map_ids : KILN_PROG_MAX_MAP_IDS;
	if (json) {
		printf("{\"id\":%u,\"type\":\"%s\",\"name\":", i->id, kiln_prog_type_name(i->type));
		cli_json_str(stdout, i->name, sizeof(i->name));
		printf(",\"tag\":\"%s\",\"insns\":%u,\"jited_bytes\":%u,\"verified_insns\":%u,\"map_ids\":[",
		       i->tag, i->xlated_insns, i->jited_bytes, i->verified_insns);
		for (uint32_t k = 0; k < nmaps; k++)
			printf("%s%u", k ? "," : "", i->map_ids[k]);
		printf("],\"loaded_at\":%lld,\"uid\":%u,\"btf_id\":%u}\n", (long long)i->load_time_unix,
		       i->created_by_uid, i->btf_id);
		return;
	}
	char maps[128] = "";
	size_t n = 0;
	for (uint32_t k = 0; k < nmaps && n + 12 < sizeof(maps); k++)
		n += (size_t)snprintf(maps + n, sizeof(maps) - n, "%s%u", k ? "," : "", i->map_ids[k]);
	printf("%6u  %-16s %-16s %-16s %6u %9u  %-19s  %s\n", i->id, kiln_prog_type_name(i->type), i->name,
	       i->tag, i->xlated_insns, i->verified_insns, when, n ? maps : "-");
}

int cmd_prog(int argc, char **argv)
{
	bool json = false;
	const char *verb = NULL;
	const struct cli_opt opts[] = { { "--json", CLI_FLAG, &json, NULL }, { 0 } };
	int npos, r = cli_parse("prog", prog_help, argc, argv, opts, &verb, 1, &npos);
	if (r != CLI_OK)
		return r;
	if (!verb || strcmp(verb, "list")) {
		if (verb)
			fprintf(stderr, "kiln prog: unknown subcommand '%s'\n", verb);
		fputs(prog_help, stderr);
		return 2;
	}
	if (!json)
		printf("%6s  %-16s %-16s %-16s %6s %9s  %-19s  %s\n", "id", "type", "name", "tag", "insns",
		       "processed", "loaded", "maps");
	uint32_t id = 0;
	int err;
	while (!(err = kiln_prog_next_id(id, &id))) {
		struct kiln_prog_info info;
		if (kiln_prog_info_id(id, &info))
			continue;   /* unloaded meanwhile */
		print_info(&info, json);
	}
	if (err != -ENOENT) {
		cli_fail("prog list");
		return 1;
	}
	return 0;
}
