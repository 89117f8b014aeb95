package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.sim.ReceivedRequest;
import narwhal.sim.SimEngine;
import org.junit.jupiter.api.Test;

/** A one-engine fleet (role both): prefill and decode on the same engine, no KV transfer. */
class SameEngineDecodeTest {

  @Test
  void sameEngine_decodeCarriesNoTransferParams_evenWhenTheClientSentSome() {
    // DemoFleet with one prefill engine, re-declared as role "both" so it serves both legs.
    try (RoutedFleet fleet = RoutedFleet.start(1, 0, RoutedFleet.fastEngines().build(),
        c -> c.withEngines(List.of(c.engines().get(0).withRole(EngineRole.BOTH))), null)) {
      RouterClient.SseResponse r = fleet.client.stream("/v1/completions", "{\"model\":\"narwhal-sim\","
          + "\"prompt\":\"solo\",\"max_tokens\":4,\"stream\":true,"
          + "\"kv_transfer_params\":{\"do_remote_prefill\":true,\"remote_engine_id\":\"x\"}}");

      assertThat(r.status()).isEqualTo(200);
      assertThat(r.text()).isEqualTo(String.join("", SimEngine.expectedTokens(0, "solo", 4)));
      List<ReceivedRequest> seen = fleet.engine("p0").received();
      assertThat(seen).hasSize(2);
      JsonNode prefill = seen.get(0).body();
      JsonNode decode = seen.get(1).body();
      assertThat(prefill.path("kv_transfer_params").path("do_remote_decode").asBoolean()).isTrue();
      assertThat(decode.has("kv_transfer_params")).isFalse();
      assertThat(fleet.engine("p0").stats().kvPulls()).isZero();
      fleet.assertReservationsReturnToZero();
    }
  }

  @Test
  void engineSpec_roleBoth_canServeEitherPhase() {
    EngineSpec both = EngineSpec.of("e", "http://127.0.0.1:1", EngineRole.BOTH);
    assertThat(both.canPrefill()).isTrue();
    assertThat(both.canDecode()).isTrue();
  }
}
