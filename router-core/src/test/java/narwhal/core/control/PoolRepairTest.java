package narwhal.core.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.core.fleet.EngineCondition;
import org.junit.jupiter.api.Test;

/**
 * Floor repair and the empty-role fallback: engines leaving placement must not leave a pool below
 * its floor, nor a role without an engine, and repairs need no profile, load or confirmation.
 */
class PoolRepairTest {

  @Test
  void aPoolBelowItsFloor_takesOneEnginePerPass_withoutProfiles() {
    ControllerFixture f = new ControllerFixture(ControllerFixture.fleet(2, 3), c -> c.toBuilder().minPrefill(2).build());
    f.profiles.replaceAll(List.of());
    f.start();
    f.engine("p0").setCondition(EngineCondition.EJECTED, "liveness");
    f.engine("d1").reserveDecode(100);

    f.ticks(1);
    // d1 holds work, d0 and d2 none: the cheapest flip is d0 (iid breaks the tie).
    assertThat(f.engine("d0").role()).isEqualTo(EngineRole.PREFILL);
    assertThat(f.decisions("moved")).singleElement().satisfies(r -> assertThat(r)
        .containsEntry("rule", "floor_repair").containsEntry("from", "decode").containsEntry("to", "prefill")
        .containsEntry("score_before", null));
    f.ticks(3);
    assertThat(f.decisions("moved")).hasSize(1);
    assertThat(f.engine("d2").role()).isEqualTo(EngineRole.DECODE);
  }

  @Test
  void aRoleLeftEmpty_fallsBackToTheOtherRole_andIsRestoredWhenItsEngineReturns() {
    ControllerFixture f = new ControllerFixture(ControllerFixture.fleet(1, 1), c -> c).start();
    f.engine("p0").setCondition(EngineCondition.EJECTED, "liveness");

    f.ticks(1);
    // d0 is the decode floor: it cannot move, so it takes both roles.
    assertThat(f.engine("d0").role()).isEqualTo(EngineRole.BOTH);
    assertThat(f.decisions("moved")).singleElement()
        .satisfies(r -> assertThat(r).containsEntry("rule", "empty_role_fallback").containsEntry("to", "both"));
    f.ticks(2);
    assertThat(f.engine("d0").role()).isEqualTo(EngineRole.BOTH);

    f.engine("p0").setCondition(EngineCondition.ACTIVE, null);
    f.ticks(1);
    assertThat(f.engine("d0").role()).isEqualTo(EngineRole.DECODE);
    assertThat(f.decisions("moved")).extracting(r -> r.get("rule"))
        .containsExactly("empty_role_fallback", "fallback_restored");
    assertThat(f.counter("narwhal_flips_total", "from", "decode", "to", "both")).isEqualTo(1);
    assertThat(f.counter("narwhal_flips_total", "from", "both", "to", "decode")).isEqualTo(1);
  }

  @Test
  void aRepairThatPinsForbid_isRecordedOnce_andNothingMoves() {
    List<EngineSpec> specs = List.of(
        EngineSpec.of("p0", "http://10.0.0.1:8000", EngineRole.PREFILL),
        EngineSpec.of("d0", "http://10.0.1.1:8000", EngineRole.DECODE).withPin(true));
    ControllerFixture f = new ControllerFixture(specs, c -> c).start();
    f.engine("p0").setCondition(EngineCondition.EJECTED, "liveness");
    f.ticks(5);
    assertThat(f.engine("d0").role()).isEqualTo(EngineRole.DECODE);
    assertThat(f.decisions("blocked")).singleElement().satisfies(r -> assertThat(r)
        .containsEntry("rule", "floor_repair").containsEntry("blocked_by", "pin").containsEntry("to", "prefill")
        .containsEntry("candidate", "d0").containsEntry("iid", null));
  }

  @Test
  void aRepairWithEveryCandidateOutOfPlacement_isBlockedByTheHold() {
    ControllerFixture f = new ControllerFixture(ControllerFixture.fleet(1, 2), c -> c).start();
    f.engine("p0").setCondition(EngineCondition.EJECTED, "liveness");
    f.engine("d0").setCondition(EngineCondition.HELD, "stream");
    f.engine("d1").setCondition(EngineCondition.HELD, "stream");
    f.ticks(3);
    assertThat(f.decisions()).singleElement().satisfies(r -> assertThat(r)
        .containsEntry("outcome", "blocked").containsEntry("blocked_by", "hold").containsEntry("to", "prefill")
        .containsEntry("candidate", "d0"));
    assertThat(f.engine("d0").role()).isEqualTo(EngineRole.DECODE);
  }

  @Test
  void advisory_recordsTheRepair_andLeavesRolesAlone() {
    ControllerFixture f = new ControllerFixture(ControllerFixture.fleet(1, 2), c -> c.withAdvisory(true)).start();
    f.engine("p0").setCondition(EngineCondition.HELD, "stream");
    f.ticks(4);
    assertThat(f.engine("d0").role()).isEqualTo(EngineRole.DECODE);
    assertThat(f.decisions("advisory")).singleElement()
        .satisfies(r -> assertThat(r).containsEntry("iid", "d0").containsEntry("rule", "floor_repair"));
  }
}
