package narwhal.bench;

import java.util.List;
import java.util.Map;

/** The replica bench's report.md: the setups side by side, then the failover figures. */
final class ReplicasReport {

  private ReplicasReport() {}

  @SuppressWarnings("unchecked")
  static String markdown(Map<String, Object> out) {
    StringBuilder md = new StringBuilder("# Replicas: one router against two\n\n");
    md.append("Command: `").append(out.get("command")).append("`; ").append(out.get("streams"))
        .append(" streams in total; load average before ").append(out.get("load_average_before"))
        .append(", after ").append(out.get("load_average_after")).append(".\n\n");
    md.append("| setup | req/s | tokens/s | TTFT p50 / p99 (ms) | added TTFT p50 / p99 (ms) | router CPU µs/token "
        + "| etcd req per client req | errors |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n");
    for (String setup : List.of("direct", "one_router", "two_replicas")) {
      Map<String, Object> f = (Map<String, Object>) out.get(setup);
      if (f == null) {
        continue;
      }
      md.append("| ").append(setup.replace('_', ' ')).append(" | ").append(f.get("requests_per_s")).append(" | ")
          .append(f.get("tokens_per_s")).append(" | ").append(f.get("ttft_ms_p50")).append(" / ")
          .append(f.get("ttft_ms_p99")).append(" | ")
          .append(f.containsKey("added_ttft_ms_p50") ? f.get("added_ttft_ms_p50") + " / " + f.get("added_ttft_ms_p99")
              : "–").append(" | ").append(f.getOrDefault("router_cpu_us_per_token", "–")).append(" | ")
          .append(f.getOrDefault("etcd_requests_per_client_request", "–")).append(" | ").append(f.get("errors"))
          .append(" |\n");
    }
    Map<String, Object> fo = (Map<String, Object>) out.get("failover");
    if (fo != null) {
      md.append("\nLeader SIGKILLed (").append(fo.get("n")).append(" times, lease TTL ").append(fo.get("lease_ttl_s"))
          .append(" s): a survivor leads after p50 ").append(fo.get("p50")).append(" s, p99 ").append(fo.get("p99"))
          .append(" s, max ").append(fo.get("max")).append(" s; it acts on its next controller pass (")
          .append(fo.get("controller_step_s")).append(" s).\n");
    }
    Map<String, Object> v = (Map<String, Object>) out.get("verdicts");
    if (v != null) {
      Map<String, Object> o = (Map<String, Object>) v.get("out_of_placement_everywhere");
      Map<String, Object> b = (Map<String, Object>) v.get("readmitted_everywhere");
      md.append("\nAn engine one replica takes out is out on the other after p50 ").append(o.get("p50"))
          .append(" ms, p99 ").append(o.get("p99")).append(" ms, max ").append(o.get("max")).append(" ms (")
          .append(o.get("n")).append(" verdicts); readmitted everywhere after p50 ").append(b.get("p50"))
          .append(" ms, p99 ").append(b.get("p99")).append(" ms (").append(b.get("n"))
          .append("), from the journals' event rows.\n");
    }
    return md.toString();
  }
}
