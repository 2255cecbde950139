// Bodies the contract refuses: each is a type error, marked as expected; tsc reports a
// mark with no error under it (so a contract that lost its required fields fails).
import type { paths } from "./api";

type Json<T> = T extends { content: { "application/json": infer B } } ? B : never;
type CreateBody = Json<paths["/v1/matches"]["post"]["requestBody"]>;
type MoveBody = Json<paths["/v1/matches/{match_id}/moves"]["post"]["requestBody"]>;

// @ts-expect-error: a match needs its players
export const noPlayers: CreateBody = { variant: "egyptian-v2" };
// @ts-expect-error: a move needs its card
export const noCard: MoveBody = { capture: [] };
// @ts-expect-error: a card is a string
export const numberCard: MoveBody = { card: 8 };
