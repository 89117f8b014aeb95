package narwhal.cluster;

import org.jspecify.annotations.Nullable;

/**
 * The key layout under {@code cluster.key_prefix} (docs/architecture.md, "Replicas"). {@link
 * #LAYOUT_VERSION} is written once, by the first replica of a fleet; a replica that finds another
 * value refuses to join. Names (replicas, engines, tenants) are checked by the fleet file or by
 * {@link #segment} before they become keys, so no key can escape its directory.
 *
 * <pre>
 * &lt;p&gt;/layout                      "1"                                  permanent
 * &lt;p&gt;/secret                      load-packet key (base64)             permanent
 * &lt;p&gt;/members/&lt;replica&gt;          name, address, version, start, ...   replica's lease
 * &lt;p&gt;/leader                      the elected controller's name        leader's lease
 * &lt;p&gt;/verdicts/&lt;iid&gt;            condition, cause, detail, by         permanent
 * &lt;p&gt;/roles/&lt;iid&gt;               role, rule, by, at                   permanent
 * &lt;p&gt;/tenants/&lt;t&gt;/epoch         bumped by every share increase       permanent
 * &lt;p&gt;/tenants/&lt;t&gt;/shares/&lt;r&gt;   units held, units wanted             replica's lease
 * &lt;p&gt;/profiles                    the narwhal.profiles document        permanent
 * </pre>
 */
final class ClusterKeys {

  /** The key layout this build reads and writes. */
  static final String LAYOUT_VERSION = "1";

  private final String root;

  ClusterKeys(String prefix) {
    this.root = prefix.endsWith("/") ? prefix.substring(0, prefix.length() - 1) : prefix;
  }

  /** Everything of this fleet (what the one watch covers). */
  String all() {
    return root + "/";
  }

  String layout() {
    return root + "/layout";
  }

  String secret() {
    return root + "/secret";
  }

  String members() {
    return root + "/members/";
  }

  String member(String replica) {
    return members() + replica;
  }

  String leader() {
    return root + "/leader";
  }

  String verdicts() {
    return root + "/verdicts/";
  }

  String verdict(String iid) {
    return verdicts() + segment(iid);
  }

  String roles() {
    return root + "/roles/";
  }

  String role(String iid) {
    return roles() + segment(iid);
  }

  String tenants() {
    return root + "/tenants/";
  }

  /** Everything of one tenant's budget: its epoch and the shares. */
  String tenant(String tenant) {
    return tenants() + segment(tenant) + "/";
  }

  String tenantEpoch(String tenant) {
    return tenants() + segment(tenant) + "/epoch";
  }

  String tenantShares(String tenant) {
    return tenants() + segment(tenant) + "/shares/";
  }

  String tenantShare(String tenant, String replica) {
    return tenantShares(tenant) + replica;
  }

  String profiles() {
    return root + "/profiles";
  }

  /** The last segment of {@code key} under {@code dir}, or null when the key is not directly in it. */
  static @Nullable String child(String key, String dir) {
    if (!key.startsWith(dir)) {
      return null;
    }
    String rest = key.substring(dir.length());
    return rest.isEmpty() || rest.contains("/") ? null : rest;
  }

  /** The tenant of a key under {@link #tenants()}, or null. */
  @Nullable String tenantOf(String key) {
    if (!key.startsWith(tenants())) {
      return null;
    }
    String rest = key.substring(tenants().length());
    int slash = rest.indexOf('/');
    return slash <= 0 ? null : rest.substring(0, slash);
  }

  /** A name as one key segment: a slash would open a directory of its own. */
  static String segment(String name) {
    return name.replace("/", "%2F");
  }
}
