// A minimal front end's calls, typed by the client openapi-typescript generates from
// openapi.yaml with its default options (api.d.ts). tsc --strict must accept it as is.
import type { components, paths, webhooks } from "./api";

type Json<T> = T extends { content: { "application/json": infer B } } ? B : never;

type CreateBody = Json<paths["/v1/matches"]["post"]["requestBody"]>;
type Created = Json<paths["/v1/matches"]["post"]["responses"][201]>;
type MoveBody = Json<paths["/v1/matches/{match_id}/moves"]["post"]["requestBody"]>;
type View = Json<paths["/v1/matches/{match_id}"]["get"]["responses"][200]>;
type JoinBody = Json<paths["/v1/matches/{match_id}/join"]["post"]["requestBody"]>;
type QuickBody = Json<paths["/v1/matches/quick"]["post"]["requestBody"]>;
type StreamEvent = components["schemas"]["StateEvent"];
type Finished = Json<NonNullable<webhooks["match.finished"]["post"]["requestBody"]>>;

// the minimal bodies a front end writes
export const create: CreateBody = { players: [{ name: "ana" }, { bot: "greedy" }] };
export const withHouseRules: CreateBody = {
  variant: "egyptian-v1",
  rules: { target_score: 61 },
  players: [{ name: "ana", player_id: "u-1" }, { open: true }],
  clock: { move_seconds: 30 },
};
export const move: MoveBody = { card: "8S" };
export const choose: MoveBody = { card: "8S", capture: ["3C", "5D"] };
export const join: JoinBody = { name: "bo" };
export const quick: QuickBody = { name: "bo" };

// what it reads back
export function firstToken(created: Created): string | null | undefined {
  return created.seats[0]?.token;
}
export function myTurn(view: View): boolean {
  return view.turn !== null && view.turn === view.seat;
}
export function streamed(event: StreamEvent): number {
  return event.data.version;
}
export function winnerOf(message: Finished): number | null {
  return message.data.winner;
}
