package narwhal.engines.sglang;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import narwhal.config.EngineApiKey;
import narwhal.api.RouterError;
import narwhal.core.legs.AuthorizingTransport;
import narwhal.api.FailureClass;
import narwhal.testing.ScriptedTransport.Call;
import org.junit.jupiter.api.Test;

/** The router's engine key on SGLang's concurrent legs, and a decode refusing it. */
class SglangCredentialsTest {

  /** The pair's two legs, sent with {@code key} (none: no header at all). */
  private static SglangPair submit(EngineApiKey key) {
    return new SglangPair(c -> c, transport -> AuthorizingTransport.wrap(transport, key));
  }

  @Test
  void bothLegs_carryTheKey() {
    List<Call> legs = submit(EngineApiKey.of("sk-sglang")).legs();

    assertThat(legs).allSatisfy(call ->
        assertThat(call.request.headers()).containsEntry("Authorization", "Bearer sk-sglang"));
    legs.forEach(Call::cancel);
  }

  @Test
  void withoutAKey_neitherLegCarriesOne() {
    List<Call> legs = submit(EngineApiKey.none()).legs();

    assertThat(legs).allSatisfy(call -> assertThat(call.request.headers()).doesNotContainKey("Authorization"));
    legs.forEach(Call::cancel);
  }

  @Test
  void decode401_isA502BlamedOnTheDecodeEngine() {
    SglangPair pair = submit(EngineApiKey.of("sk-stale"));

    pair.decode.respond(401, "{\"error\":\"Unauthorized\"}");

    RouterError error = pair.error;
    assertThat(error).isNotNull();
    assertThat(error.status()).isEqualTo(502);
    assertThat(error.type()).isEqualTo("decode");
    assertThat(error.message()).startsWith("decode engine d1 refused the router's credentials (HTTP 401)")
        .contains("engine.engine_api_key_env");
    assertThat(pair.blamed).singleElement().satisfies(f -> {
      assertThat(f.engineIid()).isEqualTo("d1");
      assertThat(f.failureClass()).isEqualTo(FailureClass.INFERENCE_STATUS);
    });
  }
}
