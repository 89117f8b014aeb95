package narwhal.bench.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import narwhal.bench.load.HttpTarget;
import narwhal.config.AdmissionMode;
import narwhal.config.FleetConfig;
import narwhal.config.FleetFileParser;
import org.junit.jupiter.api.Test;

class GeneratedConfigTest {

  private static final List<HttpTarget> PREFILL = List.of(new HttpTarget("127.0.0.1", 9001));
  private static final List<HttpTarget> DECODE =
      List.of(new HttpTarget("127.0.0.1", 9002), new HttpTarget("127.0.0.1", 9003));
  private static final NginxConfig.Ports PORTS = new NginxConfig.Ports(8080, 8081);

  @Test
  void fleetFile_isAcceptedByTheRoutersOwnParser() throws Exception {
    FleetConfig config =
        FleetFileParser.parse(FleetFile.render("narwhal-sim", PREFILL, DECODE, 9000), name -> null);
    assertThat(config.model()).isEqualTo("narwhal-sim");
    assertThat(config.engines()).hasSize(3);
    assertThat(config.serving().admission()).isEqualTo(AdmissionMode.OPEN);
    assertThat(config.engines()).allSatisfy(e -> assertThat(e.pin()).isTrue());
    assertThat(narwhal.core.checks.ProfileGate.use(config)).as("nothing prices with profiles").isNull();
    assertThat(config.serving().maxConnections()).isEqualTo(9000);
    assertThat(config.engine().tokenize()).as("the router's default").isTrue();
  }

  @Test
  void nginxConfig_relaysUnbufferedOverKeepAliveHttp11() {
    String conf = NginxConfig.render(Path.of("/tmp/x"), PORTS, PREFILL, DECODE, "auto", 19000);
    assertThat(conf)
        .contains("daemon off;")
        .contains("proxy_buffering off;")
        .contains("proxy_http_version 1.1;")
        .contains("proxy_set_header Connection \"\";")
        .contains("keepalive 1024;")
        .contains("server 127.0.0.1:9002;")
        .contains("server 127.0.0.1:9003;")
        .contains("listen 127.0.0.1:8080")
        .contains("worker_rlimit_nofile 19000;")
        .contains("pid /tmp/x/nginx.pid;")
        .contains("worker_processes auto;");
    assertThat(NginxConfig.render(Path.of("/tmp/x"), PORTS, PREFILL, DECODE, "1", 19000))
        .contains("worker_processes 1;");
  }

  @Test
  void nginxConfig_relaysEachLegFromItsOwnPortToItsOwnEngines() {
    String conf = NginxConfig.render(Path.of("/tmp/x"), PORTS, PREFILL, DECODE, "1", 19000);
    String decode = conf.substring(conf.indexOf("upstream decode {"), conf.indexOf("upstream prefill {"));
    String prefill = conf.substring(conf.indexOf("upstream prefill {"), conf.indexOf("server {"));
    assertThat(decode).contains("server 127.0.0.1:9002;", "server 127.0.0.1:9003;", "keepalive 1024;")
        .doesNotContain("9001");
    assertThat(prefill).contains("server 127.0.0.1:9001;", "keepalive 1024;").doesNotContain("9002");
    assertThat(conf).containsSubsequence("listen 127.0.0.1:8080", "proxy_pass http://decode;",
        "listen 127.0.0.1:8081", "proxy_pass http://prefill;");
    assertThat(conf.chars().filter(c -> c == '{').count()).as("balanced braces")
        .isEqualTo(conf.chars().filter(c -> c == '}').count());
  }

  @Test
  void simSettings_areSimCliFlags() {
    List<String> flags = new SimSettings("m", 3, 2, 0.02, 0.005, 20).flags();
    assertThat(narwhal.sim.SimCli.parse(flags.toArray(String[]::new)).interTokenMillis()).isEqualTo(20.0);
  }
}
