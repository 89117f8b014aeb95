package narwhal.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One live replica as it registered itself under {@code members/<name>}: where it serves, where
 * it takes load packets, what it runs and since when. {@code lease} is the lease the key lives
 * under (its incarnation: a restarted replica has a new one).
 */
record Member(String name, String address, String host, int loadPort, String version, double startedAt, long pid,
    long lease) {

  Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", name);
    m.put("address", address);
    m.put("host", host);
    m.put("load_port", loadPort);
    m.put("version", version);
    m.put("started_at", startedAt);
    m.put("pid", pid);
    return m;
  }

  /** For {@code /narwhal/state}. */
  Map<String, Object> toState() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", name);
    m.put("address", address);
    m.put("version", version);
    m.put("started_at", startedAt);
    return m;
  }

  static @Nullable Member parse(String name, String value, long lease) {
    JsonNode v = ClusterJson.object(value);
    if (v == null) {
      return null;
    }
    String address = ClusterJson.text(v, "address");
    String host = ClusterJson.text(v, "host");
    long port = ClusterJson.number(v, "load_port", 0);
    if (address == null || host == null) {
      return null;
    }
    return new Member(name, ClusterJson.clip(address, 200), ClusterJson.clip(host, 200),
        port > 0 && port < 65536 ? (int) port : 0, ClusterJson.clip(ClusterJson.text(v, "version"), 64),
        ClusterJson.decimal(v, "started_at", 0), ClusterJson.number(v, "pid", 0), lease);
  }
}
