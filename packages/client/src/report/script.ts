/**
 * The pages' only script. A large session's page keeps the calls under a closed call, and the calls' results tables,
 * as data: opening a call puts its calls in (markup the report wrote, escaped as the rest of the page), opening its
 * metrics builds its table (text through textContent). Expand/collapse all; before printing, everything is put in
 * and opened (a printed report shows everything).
 */
export const SCRIPT = `
(function(){
  var data=new WeakMap();
  function dataOf(section){
    if(!data.has(section)){var s=section.querySelector('script.lazy-data');data.set(section,s?JSON.parse(s.textContent):{tables:[],subtrees:[]});}
    return data.get(section);
  }
  function el(tag,text,cls){var e=document.createElement(tag);if(text!==undefined)e.textContent=text;if(cls)e.className=cls;return e;}
  function fillSubtree(d){
    var ul=d.querySelector(':scope>ul[data-subtree]');
    if(!ul||ul.hasAttribute('data-filled'))return;
    ul.innerHTML=dataOf(d.closest('section.session')).subtrees[Number(ul.getAttribute('data-subtree'))];
    ul.setAttribute('data-filled','');
  }
  function fillTable(d){
    if(!d.hasAttribute('data-table')||d.querySelector('table'))return;
    var t=dataOf(d.closest('section.session')).tables[Number(d.getAttribute('data-table'))];
    var table=el('table');table.appendChild(el('caption',t[0]));
    var head=el('tr');['Metric','Value','Unit','Reasoning','Judge'].forEach(function(h){var th=el('th',h);th.scope='col';head.appendChild(th);});
    table.appendChild(el('thead')).appendChild(head);
    var body=table.appendChild(el('tbody'));
    t[1].forEach(function(r){
      var tr=el('tr');tr.setAttribute('data-metric',r[0]);tr.setAttribute('data-level',r[1]);tr.setAttribute('data-measures',r[2]);
      var th=el('th',r[0]);th.scope='row';tr.appendChild(th);
      var v=el('td',r[4],'num');v.setAttribute('data-value',String(r[3]));tr.appendChild(v);
      tr.appendChild(el('td',r[5]));tr.appendChild(el('td',r[6]));tr.appendChild(el('td',r[7],r[7]==='—'?'muted':''));
      body.appendChild(tr);
    });
    d.appendChild(table);
  }
  /** Everything of a part of the page in: subtrees level by level (each brings more), then tables. */
  function fillAll(root,tables){
    var more;
    do{more=root.querySelectorAll('ul[data-subtree]:not([data-filled])');more.forEach(function(ul){fillSubtree(ul.parentElement);});}while(more.length);
    if(tables)root.querySelectorAll('details.metrics').forEach(fillTable);
  }
  document.addEventListener('toggle',function(e){
    var d=e.target;if(!d.open)return;
    if(d.matches('details.call'))fillSubtree(d);else if(d.matches('details.metrics'))fillTable(d);
  },true);
  document.addEventListener('click',function(e){
    var b=e.target.closest&&e.target.closest('button[data-tree]');
    if(!b)return;
    var section=b.closest('section.session'),expand=b.getAttribute('data-tree')==='expand';
    if(expand)fillAll(section,false);
    section.querySelectorAll('details.call').forEach(function(d){d.open=expand;});
  });
  window.addEventListener('beforeprint',function(){
    fillAll(document,true);
    document.querySelectorAll('details').forEach(function(d){d.open=true;});
  });
})();
`;
