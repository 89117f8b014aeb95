package narwhal.core.journal;

/** Why a row was dropped: the label of {@code narwhal_journal_dropped_rows_total}. */
public enum JournalDropReason {
  /** The queue was at its row or byte bound (the writer is behind or failing). */
  QUEUE_FULL("queue_full"),
  /** The row alone is larger than the whole byte bound. */
  TOO_LARGE("too_large"),
  /** The row could not be serialised to JSON. */
  UNENCODABLE("unencodable"),
  /** Recorded after close, or still unwritten when close gave up on a failing disk. */
  CLOSED("closed");

  private final String label;

  JournalDropReason(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }
}
