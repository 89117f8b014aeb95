package narwhal.engines.sglang;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import narwhal.spi.HandoffStyle;
import narwhal.spi.UnreadableHandoffException;
import narwhal.proto.v1.KvHandoffDescriptor;
import org.junit.jupiter.api.Test;

/** Planning, validating and rendering the bootstrap rendezvous. */
class SglangRendezvousTest {

  private final SglangDialect dialect = new SglangDialect();

  @Test
  void dialect_isNamedSglangAndConcurrent() {
    assertThat(dialect.name()).isEqualTo("sglang");
    assertThat(dialect.handoffStyle()).isEqualTo(HandoffStyle.CONCURRENT);
    assertThat(dialect.healthRequest().path()).isEqualTo("/health");
    assertThat(dialect.modelsRequest().path()).isEqualTo("/v1/models");
  }

  @Test
  void planHandoff_namesProducerHostPortIidConnectorAndRoom() {
    KvHandoffDescriptor d =
        dialect.planHandoff(SglangWire.producer("http://prefill-a.internal:30000", Map.of("bootstrap_port", 9100)), 77);

    assertThat(d.getHost()).isEqualTo("prefill-a.internal");
    assertThat(d.getPort()).isEqualTo(9100);
    assertThat(d.getEngineId()).isEqualTo("p0");
    assertThat(d.getConnector()).isEqualTo("nixl");
    assertThat(d.getOpaqueFieldsMap()).containsExactly(Map.entry("bootstrap_room", "77"));
    assertThat(d.getBlockIdsCount()).isZero();
  }

  @Test
  void planHandoff_defaultsToPort8998_andStripsIpv6Brackets() {
    KvHandoffDescriptor d = dialect.planHandoff(SglangWire.producer("http://[fd00::7]:30000", Map.of()), 0);

    assertThat(d.getHost()).isEqualTo("fd00::7");
    assertThat(d.getPort()).isEqualTo(8998);
  }

  @Test
  void planHandoff_badBootstrapPort_throwsNamingEngineAndOption() {
    assertThatThrownBy(() -> dialect.planHandoff(SglangWire.producer("http://h:1", Map.of("bootstrap_port", 0)), 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("engine p0")
        .hasMessageContaining("dialect_options.bootstrap_port");
  }

  @Test
  void handoffProblem_plannedRendezvousOnSameConnector_isNone() {
    KvHandoffDescriptor d = dialect.planHandoff(SglangWire.producer("http://h:1", Map.of()), 5);

    assertThat(dialect.handoffProblem(d, "nixl")).isNull();
  }

  @Test
  void handoffProblem_eachMissingPartIsNamed() {
    KvHandoffDescriptor good = dialect.planHandoff(SglangWire.producer("http://h:1", Map.of()), 5);

    assertThat(dialect.handoffProblem(good.toBuilder().clearHost().build(), "nixl"))
        .contains("no bootstrap host");
    assertThat(dialect.handoffProblem(good.toBuilder().clearPort().build(), "nixl"))
        .contains("no usable bootstrap port");
    assertThat(dialect.handoffProblem(good.toBuilder().setPort(70000).build(), "nixl"))
        .contains("no usable bootstrap port (70000)");
    assertThat(dialect.handoffProblem(good.toBuilder().clearOpaqueFields().build(), "nixl"))
        .contains("no bootstrap room");
    assertThat(dialect.handoffProblem(good.toBuilder().putOpaqueFields("bootstrap_room", "-3").build(), "nixl"))
        .contains("not an integer in [0, 2^63-1]: -3");
    assertThat(dialect.handoffProblem(good.toBuilder().putOpaqueFields("bootstrap_room", "\"x\"").build(), "nixl"))
        .contains("not an integer");
    assertThat(dialect.handoffProblem(good, "mooncake"))
        .isEqualTo("the rendezvous uses connector 'nixl' but the decode engine uses 'mooncake'");
  }

  @Test
  void handoffProblem_needsNoBlockIds() {
    KvHandoffDescriptor d = dialect.planHandoff(SglangWire.producer("http://h:1", Map.of()), 5);

    assertThat(d.getBlockIdsCount()).isZero();
    assertThat(dialect.handoffProblem(d, "nixl")).isNull();
  }

  @Test
  void transferParametersJson_isTheBootstrapTriple() {
    KvHandoffDescriptor d = dialect.planHandoff(SglangWire.producer("http://10.1.2.3:30000", Map.of()), 9);

    assertThat(SglangWire.tree(dialect.transferParametersJson(d))).isEqualTo(
        SglangWire.tree("{\"bootstrap_host\":\"10.1.2.3\",\"bootstrap_port\":8998,\"bootstrap_room\":9}"));
  }

  @Test
  void readPrefillAnswer_carriesNoDescriptor_theRouterPlansTheHandoff_butKeepsTheCount() {
    narwhal.spi.PrefillAnswer answer = dialect.readPrefillAnswer(
        "{\"id\":\"x\",\"choices\":[],\"usage\":{\"prompt_tokens\":7}}", "nixl");
    assertThat(answer.handoff()).isNull();
    assertThat(answer.promptTokens()).isEqualTo(7);
  }
}
