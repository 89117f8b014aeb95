package narwhal.config;

import static narwhal.config.NumberRange.POSITIVE;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Reads the {@code cluster} section. Every problem names its key; the password is read from the
 * environment here, once, and only the variable's name ever appears in a problem.
 */
final class ClusterParser {

  /** A key prefix: slash-separated segments of safe characters, starting with a slash. */
  private static final Pattern PREFIX = Pattern.compile("(/[A-Za-z0-9._-]+)+");

  private ClusterParser() {}

  /** The section, or null when it is absent (or JSON null): the router runs alone. */
  static @Nullable ClusterConfig cluster(ConfigObject top) {
    JsonNode raw = top.raw("cluster");
    if (raw == null || raw.isNull()) {
      return null;
    }
    ConfigObject c = top.object("cluster");
    if (!top.isValid("cluster")) {
      return null;
    }
    List<URI> endpoints = endpoints(c);
    String name = c.optionalString("name");
    if (name != null && !ClusterConfig.validName(name)) {
      c.error("name", "must be 1-100 letters, digits, '.', '_', ':' or '-', starting with a letter or digit, got \""
          + name + "\"");
    }
    String prefix = c.string("key_prefix", ClusterConfig.DEFAULT_KEY_PREFIX);
    if (!PREFIX.matcher(prefix).matches()) {
      c.error("key_prefix", "must be a path like /narwhal/fleet-a (segments of letters, digits, '.', '_', '-'), got \""
          + prefix + "\"");
    }
    int ttl = c.integer("lease_ttl_s", ClusterConfig.DEFAULT_LEASE_TTL_S, ClusterConfig.MIN_LEASE_TTL_S);
    double timeout = c.number("request_timeout_s", ClusterConfig.DEFAULT_REQUEST_TIMEOUT_S, POSITIVE);
    double load = c.number("load_interval_s", ClusterConfig.DEFAULT_LOAD_INTERVAL_S, POSITIVE);
    String user = c.optionalString("user");
    String passwordEnv = c.optionalString("password_env");
    ClusterPassword password = password(c, user, passwordEnv);
    ConfigObject tls = c.object("tls");
    Path ca = path(tls.optionalString("ca_bundle"));
    Path cert = path(tls.optionalString("client_cert"));
    Path key = path(tls.optionalString("client_key"));
    tls.finish();
    c.finish();
    if ((cert == null) != (key == null)) {
      tls.error(cert == null ? "client_cert" : "client_key",
          "client_cert and client_key go together: set both for a client certificate to etcd, or neither");
      cert = null;
      key = null;
    }
    for (var file : new Object[][] {{"ca_bundle", ca}, {"client_cert", cert}, {"client_key", key}}) {
      Path p = (Path) file[1];
      if (p != null && !java.nio.file.Files.isReadable(p)) {
        tls.error((String) file[0], "cannot read " + p);
      }
    }
    if (endpoints.isEmpty() || ttl < ClusterConfig.MIN_LEASE_TTL_S) {
      return null;
    }
    return new ClusterConfig(endpoints, name, prefix, ttl, timeout, load, user, passwordEnv, password, ca, cert, key);
  }

  private static List<URI> endpoints(ConfigObject c) {
    JsonNode raw = c.raw("endpoints");
    List<URI> out = new ArrayList<>();
    if (raw == null || !raw.isArray() || raw.isEmpty()) {
      c.error("endpoints", "required: a non-empty array of etcd client URLs, e.g. [\"http://127.0.0.1:2379\"]");
      return out;
    }
    for (int i = 0; i < raw.size(); i++) {
      JsonNode item = raw.get(i);
      String path = JsonPaths.index(c.pathOf("endpoints"), i);
      URI uri = item.isTextual() ? uri(item.asText()) : null;
      if (uri == null) {
        c.context().error(path, "must be an http:// or https:// URL with a host and port, got " + JsonPaths.show(item));
      } else {
        out.add(uri);
      }
    }
    return out;
  }

  private static @Nullable URI uri(String text) {
    try {
      URI u = new URI(text);
      String scheme = u.getScheme();
      if (scheme == null || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))
          || u.getHost() == null || u.getPort() <= 0 || u.getUserInfo() != null) {
        return null;
      }
      return u;
    } catch (URISyntaxException e) {
      return null;
    }
  }

  private static ClusterPassword password(ConfigObject c, @Nullable String user, @Nullable String env) {
    if (user == null) {
      if (env != null) {
        c.error("password_env", "needs user: the etcd user whose password it holds");
      }
      return ClusterPassword.none();
    }
    if (env == null) {
      c.error("password_env", "required with user: the environment variable holding the etcd user's password");
      return ClusterPassword.none();
    }
    if (!ParseContext.isVariableName(env)) {
      c.error("password_env", "must name an environment variable (letters, digits and _, not starting with a digit), "
          + "got \"" + env + "\"");
      return ClusterPassword.none();
    }
    String value = c.context().environment(env);
    if (value == null || value.isEmpty()) {
      c.error("password_env", "environment variable " + env + " is " + (value == null ? "not set" : "empty")
          + ": export the etcd password of user " + user + " in it");
      return ClusterPassword.none();
    }
    return ClusterPassword.of(value);
  }

  private static @Nullable Path path(@Nullable String text) {
    return text == null || text.isBlank() ? null : Path.of(text);
  }
}
