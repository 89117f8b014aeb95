package narwhal.time;

/** A scheduled task that has not run yet, or has. */
public interface Timer {

  /** Cancels the task if it has not run; returns true when this call prevented it from running. */
  boolean cancel();

  /** A timer that is already spent; handy as the initial value of a field. */
  Timer NONE = () -> false;
}
