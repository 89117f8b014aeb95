package narwhal.core.legs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import narwhal.proto.v1.KvHandoffDescriptor;
import narwhal.proto.v1.Route;
import narwhal.spi.EngineHttpRequest;
import narwhal.testing.TestDialect;
import org.junit.jupiter.api.Test;

/** A decode leg sent from a draft: the draft when it speaks the consumer's dialect, a fresh one otherwise. */
class DraftedDecodeTest {

  private static final EngineHttpRequest DRAFTED =
      new EngineHttpRequest("POST", "/v1/completions", Map.of("X-Request-Id", "drafted"), "{\"drafted\":1}".getBytes());

  @Test
  void aDraftInTheConsumersDialect_isWhatTheLegSends() {
    LegFixture f = new LegFixture();
    DraftedDecode drafted = new DraftedDecode(TestDialect.NAME, LegFixture.COMPLETION, (handoff, id) -> DRAFTED);

    f.client.decode(LegFixture.D1, drafted, LegFixture.handoff(Route.ROUTE_COMPLETIONS),
        LegFixture.decodeLimits(2500, 10_000), f.loop, f.listener, narwhal.core.trace.LegTrace.untraced("b9"));

    assertThat(f.transport.calls()).hasSize(1);
    assertThat(f.transport.calls().get(0).body()).isEqualTo("{\"drafted\":1}");
  }

  @Test
  void aDraftInAnotherDialect_isNotSent_theConsumerDraftsItsOwn() {
    LegFixture f = new LegFixture();
    DraftedDecode drafted = new DraftedDecode("another", LegFixture.COMPLETION, (handoff, id) -> {
      throw new AssertionError("another dialect's draft reached a test-dialect consumer");
    });
    KvHandoffDescriptor descriptor = LegFixture.handoff(Route.ROUTE_COMPLETIONS).descriptor();

    f.client.decode(LegFixture.D1, drafted, LegFixture.handoff(Route.ROUTE_COMPLETIONS),
        LegFixture.decodeLimits(2500, 10_000), f.loop, f.listener, narwhal.core.trace.LegTrace.untraced("b9"));

    assertThat(f.transport.calls()).hasSize(1);
    assertThat(f.transport.calls().get(0).body()).isEqualTo(new String(
        new TestDialect().decodeRequest(LegFixture.COMPLETION, descriptor, "b9").body(),
        java.nio.charset.StandardCharsets.UTF_8));
  }
}
