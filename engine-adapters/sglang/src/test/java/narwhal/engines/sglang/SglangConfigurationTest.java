package narwhal.engines.sglang;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code dialect_options} as the sglang dialect reads them at startup. */
class SglangConfigurationTest {

  private final SglangDialect dialect = new SglangDialect();

  @Test
  void noOptions_orAValidPort_haveNoProblems() {
    assertThat(dialect.configurationProblems(SglangWire.producer("http://h:1", Map.of()))).isEmpty();
    assertThat(dialect.configurationProblems(SglangWire.producer("http://h:1", Map.of("bootstrap_port", 1)))).isEmpty();
    assertThat(dialect.configurationProblems(SglangWire.producer("http://h:1", Map.of("bootstrap_port", 65535))))
        .isEmpty();
  }

  @ParameterizedTest
  @ValueSource(ints = {0, -1, 65536})
  void portOutOfRange_isAProblemSayingWhatToFix(int port) {
    assertThat(dialect.configurationProblems(SglangWire.producer("http://h:1", Map.of("bootstrap_port", port))))
        .singleElement().asString()
        .startsWith("dialect_options.bootstrap_port must be the engine's KV bootstrap port, an integer 1..65535")
        .endsWith("got " + port);
  }

  @Test
  void portOfTheWrongType_isAProblem() {
    Map<String, Object> text = Map.of("bootstrap_port", "8998");
    Map<String, Object> fraction = Map.of("bootstrap_port", 8998.5);
    Map<String, Object> nullPort = new LinkedHashMap<>();
    nullPort.put("bootstrap_port", null);

    assertThat(dialect.configurationProblems(SglangWire.producer("http://h:1", text)))
        .singleElement().asString().endsWith("got \"8998\"");
    assertThat(dialect.configurationProblems(SglangWire.producer("http://h:1", fraction)))
        .singleElement().asString().endsWith("got 8998.5");
    assertThat(dialect.configurationProblems(SglangWire.producer("http://h:1", nullPort)))
        .singleElement().asString().endsWith("got null");
  }

  @Test
  void unknownOption_isAProblem() {
    assertThat(dialect.configurationProblems(SglangWire.producer("http://h:1", Map.of("bootstrap_prot", 8998))))
        .containsExactly("dialect_options.bootstrap_prot is not an sglang option: remove it "
            + "(sglang reads only bootstrap_port)");
  }
}
