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
    if (format != null) {
      context.putProperty("NARWHAL_LOG_FORMAT", format);
    }
    context.setMDCAdapter(new ch.qos.logback.classic.util.LogbackMDCAdapter());
    context.start();
    JoranConfigurator config = new JoranConfigurator();
    config.setContext(context);
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    config.doConfigure(getClass().getClassLoader().getResource("logback.xml"));
    Logger log = context.getLogger("narwhal.core.request.OutcomeRecorder");
    log.atWarn().addKeyValue("rid", "r-1").addKeyValue("terminal", "failed").addKeyValue("status", 502)
        .addKeyValue("crossed", true).addKeyValue("ttft_s", 0.25).addKeyValue("error_type", "engine said no")
        .log("request failed: boom");
    log.info("second line");
    return err.toString(StandardCharsets.UTF_8).lines().toList();
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
