package narwhal.core.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import narwhal.config.EngineRole;
import narwhal.core.fleet.EngineCondition;
import narwhal.core.fleet.RoleMove;
import org.junit.jupiter.api.Test;

/**
 * The controller under a {@link RoleAuthority} (router replicas): a follower keeps sampling but
 * decides nothing; the leader's move is applied only once committed, nothing else is decided while
 * it waits, and a refused or failed commit moves nothing; moves another replica committed are
 * applied and shown without being decided here.
 */
class RoleAuthorityTest {

  /** An authority a test steers: whether this router leads, and each commit's answer. */
  private static final class Steered implements RoleAuthority {
    boolean leading = true;
    final List<RoleMove> asked = new ArrayList<>();
    final List<CompletableFuture<Boolean>> answers = new ArrayList<>();

    @Override
    public boolean mayDecide() {
      return leading;
    }

    @Override
    public String followingReason() {
      return "replica r9 is the elected controller";
    }

    @Override
    public CompletableFuture<Boolean> commit(RoleMove move) {
      asked.add(move);
      CompletableFuture<Boolean> answer = new CompletableFuture<>();
      answers.add(answer);
      return answer;
    }
  }

  private static ControllerFixture belowItsFloor(Steered authority) {
    ControllerFixture f = new ControllerFixture(ControllerFixture.fleet(2, 3), c -> c.toBuilder().minPrefill(2).build());
    f.profiles.replaceAll(List.of());
    f.controller.decideThrough(authority);
    f.start();
    f.engine("p0").setCondition(EngineCondition.EJECTED, "liveness");
    return f;
  }

  @Test
  void follower_decidesNothing_andSaysWhoLeads() {
    Steered authority = new Steered();
    authority.leading = false;
    ControllerFixture f = belowItsFloor(authority);

    f.ticks(3);

    assertThat(authority.asked).isEmpty();
    assertThat(f.engine("d0").role()).isEqualTo(EngineRole.DECODE);
    assertThat(f.decisions("moved")).isEmpty();
    assertThat(f.fleet.roleHistory().status()).isEqualTo("following: replica r9 is the elected controller");

    authority.leading = true;
    f.ticks(1);
    assertThat(authority.asked).hasSize(1);
    assertThat(f.fleet.roleHistory().status()).isEqualTo("active");
  }

  @Test
  void leader_appliesAMoveOnlyOnceCommitted_decidingNothingMeanwhile() {
    Steered authority = new Steered();
    ControllerFixture f = belowItsFloor(authority);

    f.ticks(1);
    assertThat(authority.asked).singleElement().satisfies(m -> {
      assertThat(m.iid()).isEqualTo("d0");
      assertThat(m.to()).isEqualTo(EngineRole.PREFILL);
    });
    assertThat(f.engine("d0").role()).as("not before the commit").isEqualTo(EngineRole.DECODE);
    f.ticks(3);
    assertThat(authority.asked).as("no other decision while one waits").hasSize(1);

    authority.answers.get(0).complete(true);
    f.loop.runPending();
    assertThat(f.engine("d0").role()).isEqualTo(EngineRole.PREFILL);
    assertThat(f.decisions("moved")).hasSize(1);
    assertThat(f.fleet.roleHistory().moves()).hasSize(1);
  }

  @Test
  void refusedOrFailedCommit_movesNothing_andTheNextPassMayTryAgain() {
    Steered authority = new Steered();
    ControllerFixture f = belowItsFloor(authority);

    f.ticks(1);
    authority.answers.get(0).complete(false); // fenced: another replica leads now
    f.loop.runPending();
    assertThat(f.engine("d0").role()).isEqualTo(EngineRole.DECODE);
    assertThat(f.decisions("moved")).isEmpty();

    f.ticks(1);
    assertThat(authority.asked).hasSize(2);
    authority.answers.get(1).completeExceptionally(new IllegalStateException("etcd unreachable"));
    f.loop.runPending();
    assertThat(f.engine("d0").role()).isEqualTo(EngineRole.DECODE);
    assertThat(f.fleet.roleHistory().moves()).isEmpty();
  }

  @Test
  void sharedMove_isAppliedAndShown_butNotDecidedHere() {
    Steered authority = new Steered();
    authority.leading = false;
    ControllerFixture f = new ControllerFixture(ControllerFixture.fleet(2, 2), c -> c);
    f.controller.decideThrough(authority);
    f.start();

    f.controller.applyShared("d1", EngineRole.PREFILL, "projected_ttft_recovery", false, "r9", false);
    f.loop.runPending();

    assertThat(f.engine("d1").role()).isEqualTo(EngineRole.PREFILL);
    assertThat(f.fleet.roleHistory().moves()).singleElement().satisfies(m -> assertThat(m.rule())
        .isEqualTo("projected_ttft_recovery"));
    assertThat(f.decisions("moved")).isEmpty();
    assertThat(f.rows).anySatisfy(r -> assertThat(r).containsEntry("event", "role_moved").containsEntry("by", "r9"));

    // Its own move, seen again through the store, changes nothing more.
    f.controller.applyShared("d1", EngineRole.PREFILL, "projected_ttft_recovery", false, "r9", false);
    f.loop.runPending();
    assertThat(f.fleet.roleHistory().moves()).hasSize(1);
  }
}
