import { Box } from "ink";
import { useContext, useEffect, useLayoutEffect, useMemo, useState } from "react";
import { useStore } from "zustand";
import { useShallow } from "zustand/react/shallow";
import type { TerminalEnd } from "../../client/terminalConnection.js";
import { Footer } from "../components/chrome/Footer.js";
import { Header } from "../components/chrome/Header.js";
import { StatusLine } from "../components/chrome/StatusLine.js";
import { ConfirmDialog } from "../components/dialogs/ConfirmDialog.js";
import { FormDialog } from "../components/dialogs/FormDialog.js";
import { FleetView } from "../components/fleet/FleetView.js";
import { IntegrationEditDialog } from "../components/integrations/IntegrationEditDialog.js";
import { IntegrationsOverlay } from "../components/integrations/IntegrationsOverlay.js";
import { SessionList } from "../components/list/SessionList.js";
import { MergedView } from "../components/merged/MergedView.js";
import { AttentionOverlay } from "../components/overlays/AttentionOverlay.js";
import { FollowUpsOverlay } from "../components/overlays/FollowUpsOverlay.js";
import { HelpOverlay } from "../components/overlays/HelpOverlay.js";
import { MessagesOverlay } from "../components/overlays/MessagesOverlay.js";
import { SessionDetail } from "../components/overlays/SessionDetail.js";
import { PaneGrid } from "../components/pane/PaneGrid.js";
import { ChangesView } from "../components/review/ChangesView.js";
import { FilesView } from "../components/review/FilesView.js";
import { LinksMenu } from "../components/review/LinksMenu.js";
import { UiContext, type UiContextValue } from "../context/uiContext.js";
import { useKeyTarget } from "../hooks/useKeyInput.js";
import { useNotifier } from "../hooks/useNotifier.js";
import { NowContext } from "../hooks/useNow.js";
import { startScreen } from "../input/actions.js";
import { mainTarget } from "../input/handlers/index.js";
import type { UiDeps } from "../model/deps.js";
import { followFleetStreams, keepSelection, recordLooks } from "../model/follow.js";
import { screenOf } from "../model/geometry.js";
import { isTooSmall, type TerminalSize } from "../model/layout.js";
import type { AppOptions, AppServices, EditText, SaveEntries } from "../model/services.js";
import { createUiStore, type DialogState, type OverlayState } from "../model/uiStore.js";
import { TooSmall } from "./TooSmall.js";

/** The signed-in screen: header, list and panes (or an overlay/dialog), status, key hints. */

export interface MainScreenProps {
  services: AppServices;
  profile: string;
  baseUrl: string;
  options: AppOptions;
  initialSessions: readonly string[];
  size: TerminalSize;
  onExit: () => void;
  save: SaveEntries | null;
  editText?: EditText | null;
  attach?: ((sessionId: string) => Promise<TerminalEnd>) | null;
}

function Body({
  dialog,
  overlay,
  width,
  height,
}: {
  dialog: DialogState | null;
  overlay: OverlayState | null;
  width: number;
  height: number;
}) {
  if (dialog) {
    if (dialog.kind === "form") return <FormDialog dialog={dialog} width={width} height={height} />;
    if (dialog.kind === "integrationEdit") {
      return <IntegrationEditDialog dialog={dialog} width={width} height={height} />;
    }
    return <ConfirmDialog dialog={dialog} width={width} height={height} />;
  }
  if (overlay?.kind === "help")
    return (
      <HelpOverlay
        width={width}
        height={height}
        offset={overlay.offset}
        sessionState={overlay.sessionState ?? null}
      />
    );
  if (overlay?.kind === "messages")
    return <MessagesOverlay width={width} height={height} offset={overlay.offset} />;
  if (overlay?.kind === "integrations")
    return <IntegrationsOverlay width={width} height={height} offset={overlay.offset} />;
  if (overlay?.kind === "changes")
    return <ChangesView overlay={overlay} width={width} height={height} />;
  if (overlay?.kind === "files")
    return <FilesView overlay={overlay} width={width} height={height} />;
  if (overlay?.kind === "links")
    return <LinksMenu overlay={overlay} width={width} height={height} />;
  if (overlay?.kind === "followUps") {
    return (
      <FollowUpsOverlay
        width={width}
        height={height}
        sessionId={overlay.sessionId}
        cursor={overlay.cursor}
      />
    );
  }
  if (overlay?.kind === "attention")
    return <AttentionOverlay width={width} height={height} cursor={overlay.cursor} />;
  if (overlay?.kind === "detail") {
    return (
      <SessionDetail
        sessionId={overlay.sessionId}
        width={width}
        height={height}
        offset={overlay.offset}
      />
    );
  }
  return null;
}

export function MainScreen(props: MainScreenProps) {
  const { services, size, options } = props;
  const now = useContext(NowContext);
  const [deps] = useState<UiDeps>(() => ({
    ui: createUiStore(size),
    services,
    options,
    exit: props.onExit,
    now,
    save: props.save,
    editText: props.editText ?? null,
    attach: props.attach ?? null,
  }));
  const { ui } = deps;
  const ctx = useMemo<UiContextValue>(() => ({ ui: deps.ui, options: deps.options }), [deps]);
  useKeyTarget(useMemo(() => mainTarget(deps), [deps]));

  useLayoutEffect(() => {
    ui.setState({ size });
  }, [ui, size]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: opens the initial panes once
  useEffect(() => {
    startScreen(deps, props.initialSessions);
    if (options.startInFleet) ui.setState({ view: "fleet" });
  }, [deps]);

  // The live list, the selection that stays put when it changes, the fleet's streams, the
  // user's looks at sessions (remembered across restarts).
  useEffect(() => {
    services.live?.start();
    const offs = [keepSelection(deps), followFleetStreams(deps), recordLooks(deps)];
    return () => {
      services.live?.stop();
      for (const off of offs) off();
    };
  }, [deps, services]);

  useNotifier(
    services.attention,
    services.sessions,
    {
      bell: options.bell,
      osc: options.osc !== "off",
      oscKind: options.osc === "777" ? "777" : "9",
      tmux: options.tmux,
    },
    options.notifyOut,
  );

  const s = useStore(
    ui,
    useShallow((st) => ({
      panes: st.panes,
      focus: st.focus,
      zoomed: st.zoomed,
      overlay: st.overlay,
      dialog: st.dialog,
      view: st.view,
    })),
  );

  if (isTooSmall(size)) return <TooSmall size={size} />;

  const layout = screenOf({ size, ...s });
  const covered = s.dialog !== null || s.overlay !== null;

  return (
    <UiContext.Provider value={ctx}>
      {/* Only the height is clipped here: every line is cut to its width by the box it is in,
          and a clip across the whole width makes Ink measure and slice every line it holds
          (pane and table borders included) again on every frame. */}
      <Box flexDirection="column" width={layout.width} height={layout.height} overflowY="hidden">
        <Header profile={props.profile} baseUrl={props.baseUrl} size={size} />
        <Box flexDirection="row" width={layout.width} height={layout.bodyRows} overflowY="hidden">
          {covered ? (
            <Body
              dialog={s.dialog}
              overlay={s.overlay}
              width={layout.width}
              height={layout.bodyRows}
            />
          ) : s.view === "fleet" ? (
            <FleetView width={layout.width} height={layout.bodyRows} />
          ) : s.view === "merged" ? (
            <MergedView width={layout.width} height={layout.bodyRows} />
          ) : (
            <>
              {layout.listWidth > 0 ? (
                <SessionList
                  width={layout.listWidth}
                  height={layout.bodyRows}
                  focused={s.focus === 0}
                />
              ) : null}
              {layout.cells.length > 0 ? (
                <PaneGrid
                  panes={s.panes}
                  cells={layout.cells}
                  focus={s.focus}
                  hiddenPanes={layout.crowded ? s.panes.length - 1 : 0}
                  width={layout.gridWidth}
                  height={layout.bodyRows}
                />
              ) : null}
            </>
          )}
        </Box>
        <StatusLine width={layout.width} />
        <Footer width={layout.width} />
      </Box>
    </UiContext.Provider>
  );
}
