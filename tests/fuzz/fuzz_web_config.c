// SPDX-License-Identifier: GPL-2.0
/*
 * --web.config.file (user/serve/web_config.c): YAML, then the bcrypt hashes' form. Whatever the
 * text, a config is refused with a reason, or accepted holding only what web_config.h promises.
 */
#include "fuzz.h"
#include "web_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct web_config config;
	char err[256];

	err[0] = '\0';
	if (web_config_parse((const char *)data, size, "/etc/foliostat", &config, err,
			     sizeof(err))) {
		FUZZ_CHECK(err[0]);
		FUZZ_CHECK(!config.cert_file && !config.key_file && !config.nr_users);
		return 0;
	}
	FUZZ_CHECK(!config.cert_file == !config.key_file);
	FUZZ_CHECK(config.nr_users >= 0 && config.nr_users <= FS_WEB_MAX_USERS);
	for (int i = 0; i < config.nr_users; i++) {
		const struct web_user *u = &config.users[i];

		FUZZ_CHECK(u->name[0] && !strchr(u->name, ':'));
		FUZZ_CHECK(strlen(u->hash) == 60 && u->hash[0] == '$' && u->hash[1] == '2');
		for (int j = 0; j < i; j++)
			FUZZ_CHECK(strcmp(config.users[j].name, u->name));
	}
	web_config_free(&config);
	return 0;
}
