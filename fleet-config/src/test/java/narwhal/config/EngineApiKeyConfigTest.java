package narwhal.config;

import static narwhal.config.FleetJson.errorsOf;
import static narwhal.config.FleetJson.minimal;
import static narwhal.config.FleetJson.parse;
import static narwhal.config.FleetJson.section;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code engine.engine_api_key_env}: the key is read once, at parse time, from the injected environment. */
class EngineApiKeyConfigTest {

  private static final String PATH = "$.engine.engine_api_key_env";

  private static ObjectNode naming(String variable) {
    ObjectNode root = minimal();
    section(root, "engine").put("engine_api_key_env", variable);
    return root;
  }

  @Test
  void namedVariable_isReadOnceAndSentAsBearer() throws Exception {
    List<String> lookups = new ArrayList<>();
    FleetConfig config = FleetFileParser.parse(naming("ENGINE_KEY").toString(), name -> {
      lookups.add(name);
      return name.equals("ENGINE_KEY") ? "sk-secret-1" : null;
    }, FleetFileParser.DEFAULT_DIALECTS);

    assertThat(lookups).containsExactly("ENGINE_KEY");
    assertThat(config.engine().engineApiKeyEnv()).isEqualTo("ENGINE_KEY");
    assertThat(config.engine().engineApiKey().isSet()).isTrue();
    assertThat(config.engine().engineApiKey().authorization()).isEqualTo("Bearer sk-secret-1");
  }

  @Test
  void printedConfig_neverShowsTheKey() throws Exception {
    FleetConfig config = parse(naming("ENGINE_KEY"), Map.of("ENGINE_KEY", "sk-secret-1"));

    assertThat(config.toString()).doesNotContain("sk-secret-1").contains("ENGINE_KEY");
    assertThat(config.engine().engineApiKey().toString()).doesNotContain("sk-secret-1");
  }

  @Test
  void absentOrEmptyName_meansNoKeyAndNoLookup() throws Exception {
    FleetConfig absent = FleetFileParser.parse(minimal().toString(), name -> {
      throw new AssertionError("looked up " + name);
    }, FleetFileParser.DEFAULT_DIALECTS);
    FleetConfig empty = parse(naming(""), Map.of());

    assertThat(absent.engine().engineApiKey()).isEqualTo(EngineApiKey.none());
    assertThat(empty.engine().engineApiKey().isSet()).isFalse();
    assertThat(empty.engine().engineApiKey().authorization()).isNull();
  }

  @Test
  void unsetVariable_isAnErrorNamingTheVariableAndThePath() {
    List<String> errors = errorsOf(naming("ENGINE_KEY").toString(), Map.of(), FleetFileParser.DEFAULT_DIALECTS);

    assertThat(errors).singleElement().satisfies(e -> assertThat(e)
        .startsWith(PATH + ": environment variable ENGINE_KEY is not set")
        .contains("export the engines' API key"));
  }

  @Test
  void emptyVariable_isAnError() {
    List<String> errors =
        errorsOf(naming("ENGINE_KEY").toString(), Map.of("ENGINE_KEY", ""), FleetFileParser.DEFAULT_DIALECTS);

    assertThat(errors).singleElement().satisfies(e -> assertThat(e)
        .startsWith(PATH + ": environment variable ENGINE_KEY is empty"));
  }

  @Test
  void unsetVariable_isReportedWithTheOtherProblems() {
    ObjectNode root = naming("ENGINE_KEY");
    section(root, "engine").put("connect_timeout_s", -1);
    section(root, "serving").put("max_attempts", 0);

    List<String> errors = errorsOf(root.toString(), Map.of(), FleetFileParser.DEFAULT_DIALECTS);

    assertThat(errors).hasSize(3)
        .anySatisfy(e -> assertThat(e).startsWith(PATH + ": environment variable ENGINE_KEY is not set"))
        .anySatisfy(e -> assertThat(e).startsWith("$.engine.connect_timeout_s"))
        .anySatisfy(e -> assertThat(e).startsWith("$.serving.max_attempts"));
  }

  @Test
  void notAVariableName_isAnError() {
    List<String> errors = errorsOf(naming("sk-literal-key"));

    assertThat(errors).singleElement().satisfies(e -> assertThat(e)
        .startsWith(PATH + ": must name an environment variable").contains("\"sk-literal-key\""));
  }

  @Test
  void keyThatWouldSplitTheHeader_isAnErrorThatHidesTheValue() {
    List<String> errors = errorsOf(naming("ENGINE_KEY").toString(), Map.of("ENGINE_KEY", "sk-1\r\nX-Evil: 1"),
        FleetFileParser.DEFAULT_DIALECTS);

    assertThat(errors).singleElement().satisfies(e -> assertThat(e)
        .startsWith(PATH + ": environment variable ENGINE_KEY cannot be sent as a bearer token")
        .doesNotContain("sk-1"));
  }

  @Test
  void codeBuiltConfig_setsNameAndKeyTogether() {
    EngineConfig engine = EngineConfig.defaults().withEngineApiKey("K", "v1");

    assertThat(engine.engineApiKeyEnv()).isEqualTo("K");
    assertThat(engine.engineApiKey().authorization()).isEqualTo("Bearer v1");
    assertThat(engine.withConnectTimeoutS(3).engineApiKey()).as("other copies keep the key")
        .isEqualTo(EngineApiKey.of("v1"));
    assertThat(EngineConfig.defaults().engineApiKey()).isEqualTo(EngineApiKey.none());
    assertThatThrownBy(() -> EngineApiKey.of("")).isInstanceOf(IllegalArgumentException.class);
  }
}
