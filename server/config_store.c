/* The store options of config.h, shared by rigd and `rigd token`: --store URL
 * and --db PATH, two spellings of one setting. The URL itself is read by
 * storage/store_url.c, the one parser of store URLs.
 */
#include "server/config.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

int rig_config_set_store(struct rig_store_url *store, const char **set_by, const char *name,
			 const char *value, char *why, size_t why_size)
{
	bool is_db = !strcmp(name, "db");
	why[0] = '\0';
	if (is_db && (!*value || strlen(value) >= 1024))
		return -1;
	char url[RIG_STORE_URL_MAX];
	if (snprintf(url, sizeof url, "%s%s", is_db ? "sqlite:" : "", value) >= (int)sizeof url) {
		snprintf(why, why_size, "at most %d bytes", RIG_STORE_URL_MAX - 1);
		return -1;
	}
	struct rig_store_url parsed;
	if (rig_store_url_parse(&parsed, url, why, why_size) != 0)
		return -1;
	if (*set_by && strcmp(*set_by, name) != 0 &&
	    (strcmp(parsed.backend, store->backend) != 0 ||
	     strcmp(parsed.address, store->address) != 0)) {
		snprintf(why, why_size,
			 "--db/RIGD_DB and --store/RIGD_STORE name different stores, '%s' and '%s'"
			 " (--db PATH is --store sqlite:PATH): give one, or the same store in both",
			 is_db ? parsed.url : store->url, is_db ? store->url : parsed.url);
		return -1;
	}
	*store = parsed;
	*set_by = is_db ? "db" : "store";
	return 0;
}
