package narwhal.core.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import org.junit.jupiter.api.Test;

/**
 * An engine's role is the router's choice: placement follows the role the controller assigns at
 * once, while work already resident stays counted where it is; reservations weigh their tokens
 * and give them back exactly once.
 */
class RoleAssignmentTest {

  private static final long NOW = 1_000_000_000L;

  private final Fleet fleet = new Fleet(List.of(
      EngineSpec.of("e0", "http://127.0.0.1:8000", EngineRole.PREFILL),
      EngineSpec.of("e1", "http://127.0.0.1:8001", EngineRole.DECODE),
      EngineSpec.of("e2", "http://127.0.0.1:8002", EngineRole.DECODE)));

  @Test
  void placementFollowsAnAssignedRole_residentWorkStaysWhereItIs() {
    EngineState e1 = fleet.get("e1");
    Reservation decoding = e1.reserveDecode(600);
    assertThat(fleet.schedulable(true)).isEqualTo(1);

    e1.assignRole(EngineRole.PREFILL);

    assertThat(fleet.schedulable(true)).isEqualTo(2);
    assertThat(fleet.schedulable(false)).isEqualTo(1);
    assertThat(fleet.pickDecode("e0", Set.of(), NOW).iid()).isEqualTo("e2");
    assertThat(e1.residentDecode()).isEqualTo(1);
    assertThat(e1.residentDecodeTokens()).isEqualTo(600);
    assertThat(e1.spec().role()).isEqualTo(EngineRole.DECODE);
    decoding.release();
    assertThat(e1.residentDecodeTokens()).isZero();
  }

  @Test
  void reservationsWeighTheirTokens_releasedOnce() {
    EngineState e0 = fleet.get("e0");
    Reservation a = e0.reservePrefill(1200);
    Reservation b = e0.reservePrefill(300);
    assertThat(e0.residentPrefillTokens()).isEqualTo(1500);

    a.release();
    a.release();

    assertThat(e0.residentPrefillTokens()).isEqualTo(300);
    assertThat(e0.residentPrefill()).isEqualTo(1);
    b.release();
    assertThat(e0.residentPrefillTokens()).isZero();
  }
}
