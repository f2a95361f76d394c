// The ASU campus map's ArcGIS REST `find` (gisprodportal.asu.edu, CampusLayers/Campus_Map_Web_Layers): Esri's answer
// { results: [{ layerId, layerName, value, attributes: { Name, Type, Description, … }, geometry: { x, y } }] }, or
// { error: { code, message } }. The layers and attribute names are the seed's (asusoda/platform
// packs/asu/queries/campus_map.py). One line per distinct place, with a map link at its point.
import { AnswerShapeError, jsonOf, type AnswerParser } from 'quad-submodule-kit';
import { line, record, required } from './text.js';

const MAX_PLACES = 8;

export const arcgisFind: AnswerParser = (input) => {
  const answer = record(jsonOf(input));
  if (answer.error !== undefined) throw new AnswerShapeError(`the map refused the search (${line(record(answer.error).message, 120) || 'an error'})`);
  const seen = new Set<string>();
  const places: string[] = [];
  for (const r of required(answer, 'results')) {
    const result = record(r);
    const attributes = record(result.attributes);
    const name = line(attributes.Name, 100) || line(result.value, 100);
    if (!name || seen.has(name.toLowerCase())) continue;
    seen.add(name.toLowerCase());
    const geometry = record(result.geometry);
    const [x, y] = [Number(geometry.x), Number(geometry.y)];
    const map = Number.isFinite(x) && Number.isFinite(y) && geometry.x !== undefined && geometry.y !== undefined
      ? ` Map: https://www.google.com/maps/search/?api=1&query=${y.toFixed(6)},${x.toFixed(6)}` : '';
    const kind = line(attributes.Type, 80) || line(result.layerName, 80);
    places.push(`${name}${kind ? ` (${kind})` : ''}: ${line(attributes.Description, 240) || 'no description'}${map}`);
    if (places.length === MAX_PLACES) break;
  }
  return places.length ? places.join('\n') : `No place on the ASU campus map matches "${input.params.place}".`;
};
