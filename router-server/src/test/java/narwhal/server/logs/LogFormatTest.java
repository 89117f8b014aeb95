package narwhal.server.logs;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;

/** The shipped logback.xml, in each format NARWHAL_LOG_FORMAT selects, writing to a captured stderr. */
class LogFormatTest {

  private final PrintStream realErr = System.err;
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();
  private final LoggerContext context = new LoggerContext();

  @AfterEach
  void restore() {
    System.setErr(realErr);
    context.stop();
  }

  /** Configures a context from the shipped logback.xml with {@code format}, logs a request line. */
  private List<String> logARequest(String format) throws Exception {
    Logger log = configure(format).getLogger("narwhal.core.request.OutcomeRecorder");
    log.atWarn().addKeyValue("rid", "r-1").addKeyValue("terminal", "failed").addKeyValue("status", 502)
        .addKeyValue("crossed", true).addKeyValue("ttft_s", 0.25).addKeyValue("error_type", "engine said no")
        .log("request failed: boom");
    log.info("second line");
    return err.toString(StandardCharsets.UTF_8).lines().toList();
  }

  /** A forged JSON event and a forged text line, as a client would plant them after a line break. */
  private static final String FORGED_JSON =
      "{\"ts\":\"2026-12-04T00:00:00.000Z\",\"level\":\"ERROR\",\"logger\":\"narwhal.report\",\"msg\":\"FORGED\"}";
  private static final String FORGED_TEXT = "2026-12-04T00:00:00.000Z ERROR [main] n.report - FORGED";

  /**
   * Client bytes in a message, an exception's message (and its cause's) and a key-value pair: CR,
   * LF, the other controls and the Unicode line separators come out escaped, so whatever follows
   * a line break in them never stands at the start of a line (CWE-117).
   */
  @ParameterizedTest
  @ValueSource(strings = {"text", "json"})
  void clientBytesWithLineBreaks_neverStartALine(String format) throws Exception {
    Logger log = configure(format).getLogger("io.grpc.netty.NettyServerTransport.connections");
    String hostile = "GET /x\n" + FORGED_JSON + "\r\n" + FORGED_TEXT + "\r" + FORGED_TEXT + "\u2028"
        + FORGED_TEXT + "\u0085" + FORGED_TEXT + "\u001b[2J\u007f";
    Exception failure = new IllegalStateException("Unexpected HTTP/1.x request: " + hostile,
        new IllegalArgumentException("cause: " + hostile));
    failure.addSuppressed(new RuntimeException("suppressed: " + hostile));
    log.atInfo().addKeyValue("client_rid", hostile).setCause(failure).log("Transport failed: " + hostile);

    String written = err.toString(StandardCharsets.UTF_8);
    assertThat(written).doesNotContain("\r").doesNotContain("\u2028").doesNotContain("\u0085")
        .doesNotContain("\u001b").doesNotContain("\u007f");
    List<String> lines = written.lines().toList();
    assertThat(lines).noneMatch(l -> l.startsWith("{\"ts\":\"2026-12-04T00:00:00.000Z\""))
        .noneMatch(l -> l.startsWith(FORGED_TEXT));
    if (format.equals("json")) {
      assertThat(lines).as("one event, one line").hasSize(1);
      JsonNode event = new ObjectMapper().readTree(lines.get(0));
      assertThat(event.get("msg").asText()).isEqualTo("Transport failed: " + hostile);
      assertThat(event.get("client_rid").asText()).as("JSON keeps the bytes, escaped").isEqualTo(hostile);
      assertThat(lines.get(0)).contains("\\u2028").contains("\\u0085").containsIgnoringCase("\\u007f");
    } else {
      assertThat(lines.get(0)).contains("Transport failed: GET /x\\n{\"ts\"").contains("\\r\\n" + FORGED_TEXT)
          .contains("\\u2028").contains("\\u001b[2J").contains(" client_rid=\"GET /x\\n{");
      // Every other line is the stack trace: a frame, or an exception's escaped first line.
      assertThat(lines.subList(1, lines.size())).isNotEmpty().allSatisfy(l -> assertThat(l).matches(
          "\t*(at .*|\\.\\.\\. \\d+ (common frames omitted|more)|(Caused by: |Suppressed: )?java\\.lang\\.\\w+: .*)"));
      assertThat(written).contains("java.lang.IllegalStateException: Unexpected HTTP/1.x request: GET /x\\n{")
          .contains("Caused by: java.lang.IllegalArgumentException: cause: GET /x\\n{")
          .contains("Suppressed: java.lang.RuntimeException: suppressed: GET /x\\n{");
    }
  }

  private LoggerContext configure(String format) throws Exception {
    if (format != null) {
      context.putProperty("NARWHAL_LOG_FORMAT", format);
    }
    context.setMDCAdapter(new ch.qos.logback.classic.util.LogbackMDCAdapter());
    context.start();
    JoranConfigurator config = new JoranConfigurator();
    config.setContext(context);
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    config.doConfigure(getClass().getClassLoader().getResource("logback.xml"));
    return context;
  }

  @Test
  void json_isOneObjectPerLine_withTheRequestFieldsAsFields() throws Exception {
    List<String> lines = logARequest("json");

    assertThat(lines).hasSize(2);
    JsonNode first = new ObjectMapper().readTree(lines.get(0));
    assertThat(first.get("level").asText()).isEqualTo("WARN");
    assertThat(first.get("logger").asText()).isEqualTo("narwhal.core.request.OutcomeRecorder");
    assertThat(first.get("msg").asText()).isEqualTo("request failed: boom");
    assertThat(first.get("rid").asText()).isEqualTo("r-1");
    assertThat(first.get("status").isInt()).isTrue();
    assertThat(first.get("status").asInt()).isEqualTo(502);
    assertThat(first.get("crossed").isBoolean()).isTrue();
    assertThat(first.get("ttft_s").asDouble()).isEqualTo(0.25);
    assertThat(first.get("ts").asText()).as("date, time and zone offset")
        .matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}(Z|[+-]\\d{2}:\\d{2})");
    assertThat(new ObjectMapper().readTree(lines.get(1)).get("msg").asText()).isEqualTo("second line");
  }

  @Test
  void text_isTheDefault_withDateZoneAndTheFieldsAsPairs() throws Exception {
    List<String> lines = logARequest(null);

    assertThat(lines).hasSize(2);
    assertThat(lines.get(0)).matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}(Z|[+-]\\d{2}:\\d{2}) WARN .*")
        .endsWith("request failed: boom rid=r-1 terminal=failed status=502 crossed=true ttft_s=0.25 "
            + "error_type=\"engine said no\"");
    assertThat(lines.get(1)).endsWith(" - second line");
  }
}
