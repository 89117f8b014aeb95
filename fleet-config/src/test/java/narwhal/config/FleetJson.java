package narwhal.config;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Builds fleet documents for parser tests, starting from the smallest valid one. */
final class FleetJson {

  static final ObjectMapper MAPPER = new ObjectMapper();

  private FleetJson() {}

  /** Schema, model, one prefill and one decode engine, and the SLO: nothing else. */
  static ObjectNode minimal() {
    ObjectNode root = MAPPER.createObjectNode();
    root.put("schema", "narwhal.fleet");
    root.put("schema_version", 1);
    root.put("model", "m");
    ArrayNode engines = root.putArray("engines");
    engines.addObject().put("iid", "p0").put("url", "http://127.0.0.1:8100").put("role", "prefill");
    engines.addObject().put("iid", "d0").put("url", "http://127.0.0.1:8101");
    root.putObject("slo").put("ttft_s", 2.0).put("tpot_s", 0.1);
    return root;
  }

  static ObjectNode engine(ObjectNode root, int index) {
    return (ObjectNode) root.get("engines").get(index);
  }

  static ObjectNode section(ObjectNode root, String name) {
    return root.has(name) ? (ObjectNode) root.get(name) : root.putObject(name);
  }

  static FleetConfig parse(ObjectNode root) throws FleetConfigException {
    return parse(root.toString());
  }

  static FleetConfig parse(String json) throws FleetConfigException {
    return FleetFileParser.parse(json, name -> null, FleetFileParser.DEFAULT_DIALECTS);
  }

  static FleetConfig parse(ObjectNode root, Map<String, String> env) throws FleetConfigException {
    return FleetFileParser.parse(root.toString(), env::get, FleetFileParser.DEFAULT_DIALECTS);
  }

  /** The errors the document produces; fails when it parses. */
  static List<String> errorsOf(ObjectNode root) {
    return errorsOf(root.toString(), Map.of(), FleetFileParser.DEFAULT_DIALECTS);
  }

  static List<String> errorsOf(String json) {
    return errorsOf(json, Map.of(), FleetFileParser.DEFAULT_DIALECTS);
  }

  static List<String> errorsOf(String json, Map<String, String> env, Set<String> dialects) {
    try {
      FleetConfig parsed = FleetFileParser.parse(json, env::get, dialects);
      throw new AssertionError("expected errors, but the document parsed: " + parsed);
    } catch (FleetConfigException e) {
      return e.errors();
    }
  }
}
