package narwhal.config;

import static narwhal.config.NumberRange.NON_NEGATIVE;
import static narwhal.config.NumberRange.UNIT_INTERVAL;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Parses the {@code tenants} section, inline ({@code list}, {@code operator_keys}) or from the
 * JSON file its {@code file} key names (relative paths against the working directory, as {@code
 * profiles.path}), so keys can live in a file with tighter permissions than the fleet file.
 *
 * <p>Key values are never echoed in a problem: a key pasted where its hash belongs would
 * otherwise end up in a terminal, a log or a CI transcript.
 */
final class TenantsParser {

  private TenantsParser() {}

  static TenantsConfig tenants(ConfigObject top) {
    JsonNode raw = top.raw("tenants");
    if (raw == null || raw.isNull()) {
      return TenantsConfig.none();
    }
    ConfigObject t = top.object("tenants");
    String file = t.optionalString("file");
    if (file != null) {
      if (t.isSet("list") || t.isSet("operator_keys")) {
        t.error("file", "names a tenants file, so list and operator_keys belong in that file, not here");
      }
      t.finish();
      return fromFile(t, file);
    }
    TenantsConfig parsed = body(t);
    t.finish();
    return parsed;
  }

  private static TenantsConfig fromFile(ConfigObject t, String file) {
    JsonNode root;
    try {
      root = new ObjectMapper().readTree(Files.readString(Path.of(file)));
    } catch (IOException | RuntimeException e) {
      t.error("file", "cannot read tenants file " + file + ": " + e.getClass().getSimpleName());
      return TenantsConfig.none();
    }
    if (root == null || !root.isObject()) {
      t.error("file", "tenants file " + file + " must hold a JSON object with list and operator_keys");
      return TenantsConfig.none();
    }
    ConfigObject body = new ConfigObject((ObjectNode) root, file + ": $", t.context());
    TenantsConfig parsed = body(body);
    body.finish();
    return parsed;
  }

  private static TenantsConfig body(ConfigObject t) {
    ParseContext ctx = t.context();
    Map<String, String> keyIdPaths = new HashMap<>();
    List<ApiKeyHash> operatorKeys = keyHashes(t, "operator_keys", keyIdPaths, false);
    List<TenantConfig> tenants = new ArrayList<>();
    String listPath = t.pathOf("list");
    JsonNode list = t.raw("list");
    if (list == null || !list.isArray() || list.isEmpty()) {
      ctx.error(listPath, "required: a non-empty array of tenant objects");
      return new TenantsConfig(tenants, operatorKeys);
    }
    Map<String, String> namePaths = new HashMap<>();
    for (int i = 0; i < list.size(); i++) {
      String entryPath = JsonPaths.index(listPath, i);
      JsonNode node = list.get(i);
      if (!node.isObject()) {
        ctx.error(entryPath, "must be a tenant object, got " + JsonPaths.show(node));
        continue;
      }
      ConfigObject e = new ConfigObject((ObjectNode) node, entryPath, ctx);
      String name = e.requiredString("name");
      if (name != null && !name.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,62}")) {
        // The name is a metric label value and a journal field: keep it short and plain.
        e.error("name", "must be 1-63 letters, digits, '.', '_' or '-', starting with a letter or digit");
        name = null;
      }
      if (name != null && namePaths.putIfAbsent(name, entryPath) != null) {
        e.error("name", "\"" + name + "\" is already the name of " + namePaths.get(name));
      }
      List<ApiKeyHash> keys = keyHashes(e, "keys", keyIdPaths, true);
      List<String> models = strings(e, "models");
      int maxInFlight = e.integer("max_in_flight", 0, 0);
      double ratePerS = e.number("rate_per_s", 0, NON_NEGATIVE);
      double burst = e.number("burst", Math.max(1, ratePerS), NON_NEGATIVE);
      if (ratePerS > 0 && burst < 1) {
        e.error("burst", "must be >= 1 when rate_per_s is set, or no request could ever pass");
      }
      double queueShare = e.number("queue_share", 1.0, UNIT_INTERVAL);
      e.finish();
      if (name != null) {
        tenants.add(new TenantConfig(name, keys, models, maxInFlight, ratePerS, burst, queueShare));
      }
    }
    return new TenantsConfig(tenants, operatorKeys);
  }

  private static List<ApiKeyHash> keyHashes(ConfigObject o, String key, Map<String, String> keyIdPaths,
      boolean required) {
    ParseContext ctx = o.context();
    String path = o.pathOf(key);
    JsonNode raw = o.raw(key);
    List<ApiKeyHash> out = new ArrayList<>();
    if (raw == null || raw.isNull()) {
      if (required) {
        ctx.error(path, "required: a non-empty array of key hash lines (narwhal key prints them)");
      }
      return out;
    }
    if (!raw.isArray() || (required && raw.isEmpty())) {
      ctx.error(path, "must be a non-empty array of key hash lines (narwhal key prints them)");
      return out;
    }
    for (int i = 0; i < raw.size(); i++) {
      String itemPath = JsonPaths.index(path, i);
      JsonNode item = raw.get(i);
      if (!item.isTextual()) {
        ctx.error(itemPath, "must be a key hash line (a string)");
        continue;
      }
      try {
        ApiKeyHash h = ApiKeyHash.parse(item.asText());
        String previous = keyIdPaths.putIfAbsent(h.keyId(), itemPath);
        if (previous != null) {
          ctx.error(itemPath, "key id " + h.keyId() + " is already used at " + previous);
          continue;
        }
        out.add(h);
      } catch (IllegalArgumentException e) {
        ctx.error(itemPath, e.getMessage());
      }
    }
    return out;
  }

  private static List<String> strings(ConfigObject o, String key) {
    JsonNode raw = o.raw(key);
    List<String> out = new ArrayList<>();
    if (raw == null || raw.isNull()) {
      return out;
    }
    if (!raw.isArray()) {
      o.error(key, "must be an array of model names, got " + JsonPaths.show(raw));
      return out;
    }
    for (int i = 0; i < raw.size(); i++) {
      JsonNode item = raw.get(i);
      if (!item.isTextual() || item.asText().isEmpty()) {
        o.context().error(JsonPaths.index(o.pathOf(key), i), "must be a non-empty model name");
      } else {
        out.add(item.asText());
      }
    }
    return out;
  }
}
