package narwhal.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Reads the {@code engines} array: each entry's keys, unique ids and URLs, and whether the fleet
 * can run both legs at all (some engine must be able to prefill and some engine to decode).
 */
final class EngineListParser {

  private static final String URL_SHAPE = "an absolute http(s) URL with no path, query or user";

  private EngineListParser() {}

  /** The engines that parsed; the fleet-level {@code engine} section supplies the defaults. */
  static List<EngineSpec> engines(ConfigObject top, EngineConfig engine) {
    ParseContext ctx = top.context();
    String path = top.pathOf("engines");
    JsonNode raw = top.raw("engines");
    if (raw == null) {
      ctx.error(path, "required: a non-empty array of engine objects");
      return List.of();
    }
    if (!raw.isArray() || raw.isEmpty()) {
      ctx.error(path, "must be a non-empty array of engine objects, got " + JsonPaths.show(raw));
      return List.of();
    }
    List<EngineSpec> engines = new ArrayList<>();
    Map<String, String> iidPaths = new HashMap<>();
    Map<URI, String> urlPaths = new HashMap<>();
    // Coverage is judged on every entry's role, even entries dropped for a bad iid or url, so one
    // typo does not also produce a misleading coverage error.
    List<EngineRole> roles = new ArrayList<>();
    boolean rolesKnown = true;
    for (int i = 0; i < raw.size(); i++) {
      String entryPath = JsonPaths.index(path, i);
      JsonNode node = raw.get(i);
      if (!node.isObject()) {
        ctx.error(entryPath, "must be an engine object, got " + JsonPaths.show(node));
        rolesKnown = false;
        continue;
      }
      ConfigObject entry = new ConfigObject((ObjectNode) node, entryPath, ctx);
      EngineSpec spec = entry(entry, engine, iidPaths, urlPaths, roles);
      rolesKnown &= entry.isValid("role");
      if (spec != null) {
        engines.add(spec);
      }
    }
    if (rolesKnown) {
      checkCoverage(ctx, path, roles);
    }
    return engines;
  }

  private static @Nullable EngineSpec entry(
      ConfigObject e,
      EngineConfig engine,
      Map<String, String> iidPaths,
      Map<URI, String> urlPaths,
      List<EngineRole> roles) {
    String iid = e.requiredString("iid");
    if (iid != null) {
      String earlier = iidPaths.putIfAbsent(iid, e.pathOf("iid"));
      if (earlier != null) {
        e.error("iid", "duplicates " + earlier + " (\"" + iid + "\")");
      }
    }
    URI url = null;
    String urlText = e.requiredString("url");
    if (urlText != null) {
      url = engineUrl(e, urlText);
    }
    if (url != null) {
      String earlier = urlPaths.putIfAbsent(url, e.pathOf("url"));
      if (earlier != null) {
        e.error("url", "duplicates " + earlier + " (" + url + ")");
      }
    }
    EngineRole role =
        Objects.requireNonNullElse(e.choice("role", Choices.ROLES, false), EngineRole.DECODE);
    roles.add(role);
    boolean pin = e.bool("pin", false);
    URI attestationUrl = attestationUrl(e);
    String sharedDevice = sharedDevice(e);
    String dialect =
        Objects.requireNonNullElse(
            e.choice("dialect", SectionParsers.dialects(e), true), engine.dialect());
    Map<String, @Nullable Object> dialectOptions = dialectOptions(e);
    e.finish();
    if (iid == null || url == null) {
      return null;
    }
    return EngineSpec.of(iid, url, role).toBuilder()
        .attestationUrl(attestationUrl)
        .pin(pin)
        .sharedDevice(sharedDevice)
        .dialect(dialect)
        .connector(engine.connector())
        .dialectOptions(dialectOptions)
        .build();
  }

  /**
   * The free-form {@code dialect_options} object. Only its shape is checked here: what the keys
   * mean is the dialect's business, checked by the dialect when the router starts.
   */
  private static Map<String, @Nullable Object> dialectOptions(ConfigObject e) {
    JsonNode raw = e.raw("dialect_options");
    if (raw == null || raw.isNull()) {
      return Map.of();
    }
    if (!raw.isObject()) {
      e.error("dialect_options", "must be an object, got " + JsonPaths.show(raw));
      return Map.of();
    }
    return FreeFormJson.toMap(raw);
  }

  /** The URL reduced to scheme, host and port, or null when it is not a bare http(s) origin. */
  private static @Nullable URI engineUrl(ConfigObject e, String text) {
    URI uri = httpUri(text);
    boolean bare =
        uri != null
            && uri.getRawUserInfo() == null
            && (uri.getRawPath() == null
                || uri.getRawPath().isEmpty()
                || uri.getRawPath().equals("/"))
            && uri.getRawQuery() == null
            && uri.getRawFragment() == null;
    if (!bare) {
      e.error("url", "must be " + URL_SHAPE + ", got \"" + text + "\"");
      return null;
    }
    // Engine routes (/v1/completions, /health) are appended to this origin, so a trailing "/" or
    // upper-case scheme/host must not make two spellings of one engine differ.
    String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
    String host = uri.getHost().toLowerCase(Locale.ROOT);
    return URI.create(scheme + "://" + host + (uri.getPort() == -1 ? "" : ":" + uri.getPort()));
  }

  private static @Nullable URI attestationUrl(ConfigObject e) {
    String text = e.optionalString("attestation_url");
    if (text == null) {
      return null;
    }
    URI uri = httpUri(text);
    if (uri == null || uri.getRawFragment() != null) {
      e.error("attestation_url", "must be an absolute http(s) URL, got \"" + text + "\"");
      return null;
    }
    return uri;
  }

  private static @Nullable URI httpUri(String text) {
    try {
      URI uri = new URI(text);
      String scheme = uri.getScheme();
      boolean http = "http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme);
      return http && uri.getHost() != null ? uri : null;
    } catch (URISyntaxException notAUri) {
      return null;
    }
  }

  /** A device name, or a device index written as a non-negative integer. */
  private static @Nullable String sharedDevice(ConfigObject e) {
    JsonNode raw = e.raw("shared_device");
    if (raw == null || raw.isNull()) {
      return null;
    }
    if (raw.isIntegralNumber() && raw.canConvertToInt() && raw.intValue() >= 0) {
      return Integer.toString(raw.intValue());
    }
    if (raw.isTextual()) {
      return e.optionalString("shared_device");
    }
    e.error(
        "shared_device",
        "must be a device name or a device index >= 0, got " + JsonPaths.show(raw));
    return null;
  }

  private static void checkCoverage(ParseContext ctx, String path, List<EngineRole> roles) {
    if (roles.stream().noneMatch(EngineRole::canPrefill)) {
      ctx.error(path, "no engine can prefill: give at least one engine role prefill or both");
    }
    if (roles.stream().noneMatch(EngineRole::canDecode)) {
      ctx.error(path, "no engine can decode: give at least one engine role decode or both");
    }
  }
}
