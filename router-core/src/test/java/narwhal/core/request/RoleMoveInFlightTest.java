package narwhal.core.request;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import narwhal.config.EngineRole;
import narwhal.core.fleet.DecodePace;
import narwhal.core.fleet.EngineState;
import narwhal.core.fleet.RoleMove;
import narwhal.core.request.RouterFixture.Client;
import narwhal.testing.OpenAiWire;
import narwhal.testing.ScriptedTransport.Call;
import org.junit.jupiter.api.Test;

/**
 * What a role move means for requests (the role controller's {@link EngineState#assignRole}): new
 * placements follow the new role at once, work already on the engine finishes where it is; and
 * what requests tell the controller (decode pace, arrivals).
 */
class RoleMoveInFlightTest {

  @Test
  void aDecodeInFlightOnAnEngineMovedToPrefill_completesThere_whileNewRequestsFollowTheNewRole() {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo());
    Client first = r.submitCompletion();
    r.prefillOk(r.call(0));
    Call decode = r.call(1);
    assertThat(r.iidOf(decode)).isEqualTo("d1");
    decode.sse().event(OpenAiWire.completionToken("a"));

    EngineState d1 = r.fleet.get("d1");
    d1.assignRole(EngineRole.PREFILL);

    // A second request, with p1, p2 and d2 busier than d1: least-loaded placement now sends its
    // prefill to d1, and its decode to d2, which it would not have chosen before the move.
    for (String busy : List.of("p1", "p2")) {
      r.fleet.get(busy).reservePrefill(10);
      r.fleet.get(busy).reservePrefill(10);
    }
    r.fleet.get("d2").reserveDecode(10);
    r.fleet.get("d2").reserveDecode(10);
    Client second = r.submitCompletion();
    Call secondPrefill = r.call(2);
    assertThat(r.iidOf(secondPrefill)).isEqualTo("d1");
    r.prefillOk(secondPrefill);
    assertThat(r.iidOf(r.call(3))).isEqualTo("d2");

    r.loop.advanceMillis(20);
    decode.event(OpenAiWire.completionToken("b"));
    r.loop.advanceMillis(30);
    decode.event(OpenAiWire.completionFinish("c", "length")).event("[DONE]").end();

    assertThat(first.sink().log).endsWith("complete");
    Map<String, Object> row = r.journal.rows.get(0);
    assertThat(row).containsEntry("terminal", "completed").containsEntry("decode_iid", "d1")
        .containsEntry("output_len", 3);
    assertThat(d1.residentDecode()).isZero();
    // The gaps between its tokens reached d1's pace: 20 ms and 30 ms.
    DecodePace.Sample pace = d1.decodePace().drain();
    assertThat(pace.gaps()).isEqualTo(2);
    assertThat(pace.meanSeconds()).isEqualTo(0.025);
    assertThat(second.sink().log).isEmpty();
    assertThat(r.fleet.arrivals().drain().count()).as("both requests counted as they started").isEqualTo(2);
  }

  @Test
  void theStateDocument_showsTheControllersStatusAndMoves() {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo());
    r.fleet.roleHistory().status("active");
    r.fleet.get("d2").assignRole(EngineRole.PREFILL);
    r.fleet.roleHistory().record(new RoleMove(1767225600.5, "d2", EngineRole.DECODE, EngineRole.PREFILL,
        "projected_ttft_recovery", false), 10);

    Map<String, Object> state = r.router.stateDocument(r.loop);

    @SuppressWarnings("unchecked")
    List<Map<String, Object>> engines = (List<Map<String, Object>>) state.get("engines");
    assertThat(engines).filteredOn(e -> e.get("iid").equals("d2")).singleElement()
        .satisfies(e -> assertThat(e).containsEntry("role", "prefill"));
    @SuppressWarnings("unchecked")
    Map<String, Object> controller = (Map<String, Object>) state.get("controller");
    assertThat(controller).containsEntry("status", "active");
    assertThat(controller.get("flips")).isEqualTo(List.of(Map.of("at", 1767225600.5, "iid", "d2", "from", "decode",
        "to", "prefill", "rule", "projected_ttft_recovery", "reversal", false)));
  }
}
