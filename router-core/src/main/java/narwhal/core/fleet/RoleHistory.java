package narwhal.core.fleet;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/**
 * What the role controller has done to the fleet's roles, for {@code /narwhal/state}: the last
 * moves it applied (at most {@code controller.flip_history}, oldest first) and its one-line
 * status ({@code active}, {@code advisory}, or {@code off: <why>}). Written by the controller on
 * its loop and read by the state endpoint on any loop, hence the lock; both are rare.
 */
public final class RoleHistory {

  private final Deque<RoleMove> moves = new ArrayDeque<>();
  private volatile String status = "off: not started";

  /** Adds {@code move}, keeping only the newest {@code keep} moves. */
  public synchronized void record(RoleMove move, int keep) {
    moves.addLast(move);
    while (moves.size() > Math.max(0, keep)) {
      moves.removeFirst();
    }
  }

  /** The moves kept, oldest first. */
  public synchronized List<RoleMove> moves() {
    return List.copyOf(moves);
  }

  /** The controller's status as the state endpoint shows it. */
  public String status() {
    return status;
  }

  public void status(String status) {
    this.status = status;
  }
}
