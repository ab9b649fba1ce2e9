import { useStore } from "zustand";
import { createStore } from "zustand/vanilla";
import {
  type ApprovalsBookState,
  type ApprovalsEntry,
  approvalsOf,
} from "../../store/approvals/approvalsBook.js";
import { useServices } from "../context/servicesContext.js";

/** A book that never changes, for a UI without acting (a replay). */
const NO_BOOK = createStore<ApprovalsBookState>()(() => ({ bySession: new Map(), reading: 0 }));

/** A session's entry in the approvals book (the empty one without a book). */
export function useApprovalsEntry(sessionId: string): ApprovalsEntry {
  const { approvals } = useServices();
  return useStore(approvals ?? NO_BOOK, (s) => approvalsOf(s, sessionId));
}
