package narwhal.core.control;

import java.util.concurrent.CompletableFuture;
import narwhal.core.fleet.RoleMove;
import org.jspecify.annotations.Nullable;

/**
 * Who may move engines between roles, and where a move is committed. A router on its own ({@link
 * #LOCAL}) always decides and commits at once. With replicas exactly one of them, the elected
 * one, decides; it stops deciding as soon as it can no longer be sure it still holds its
 * election lease, and each move is committed by a write that succeeds only while it does
 * (fencing), so a paused or partitioned former leader can never overwrite a newer leader's moves.
 *
 * <p>Called on the controller's event loop: neither method may block.
 */
public interface RoleAuthority {

  /** True while this router is the one that decides role moves. */
  boolean mayDecide();

  /**
   * Commits {@code move} for every replica. Completes with true once committed (the controller
   * then applies it here), false when refused because this router no longer leads; exceptionally
   * when the store could not be reached (nothing moved). May complete on another thread.
   */
  CompletableFuture<Boolean> commit(RoleMove move);

  /** Why this router does not decide, for {@code /narwhal/state}; null while it does. */
  default @Nullable String followingReason() {
    return null;
  }

  /** A router on its own: it decides, and a move is committed the moment it is made. */
  RoleAuthority LOCAL = new RoleAuthority() {
    @Override
    public boolean mayDecide() {
      return true;
    }

    @Override
    public CompletableFuture<Boolean> commit(RoleMove move) {
      return CompletableFuture.completedFuture(true);
    }
  };
}
